"""Watching the pod: the alert rules derived from the site model (alerts.py) and the rules that check the
model's monitoring section (rules.py)."""
