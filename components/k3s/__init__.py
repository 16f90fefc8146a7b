"""k3s, whatever its machines: K3sCluster over SSH, the PKI Pulumi makes, the host scripts, cloud-init
and startup scripts for cloud VMs, the shared k3s-on-cloud flow and what k3s substrates share."""
