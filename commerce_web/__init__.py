"""The web app (``commerce serve``) and the replay command: Commerce to look at.

Extra ``web`` (Flask); nothing here is imported by ``commerce_env``.
"""
