"""Meaning checks every substrate shares (cluster.py, keys.py), and those of k3s on any cloud (k3s.py);
each substrate adds its own in providers/<cloud>/validation.py."""
