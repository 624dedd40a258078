"""Training with stable-baselines3 / sb3-contrib (MaskablePPO), and the ``commerce`` CLI."""
