"""GPU verification: per GPU pool, a Kubernetes Job that proves a pod gets what the pool promises."""
