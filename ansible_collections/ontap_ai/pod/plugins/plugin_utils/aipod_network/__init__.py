"""Switch-layer renderers: the switch plan of the site model, turned into each platform's terms.

aipod_site.model.switch_plan says what a switch gets; these modules say how NX-OS and NVUE
spell it. Platform constants (QoS class names, priorities, ECN thresholds) come from the
roles' defaults as an options mapping; nothing here reads the inventory.
"""
