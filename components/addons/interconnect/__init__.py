"""The interconnect add-on: the fast fabric between GPU nodes (`nodePools[].interconnect`)."""
