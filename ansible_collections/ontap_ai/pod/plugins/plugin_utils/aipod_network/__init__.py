"""The switch layer: the switch plan derived from the site model, turned into each platform's terms.

model.switch_plan says what a switch gets (model.cabling_plan, every cable); nxos and nvue say
how NX-OS and NVUE spell it, cabling writes the cabling plan for people. Platform constants (QoS class names, priorities, ECN thresholds) come from the
roles' defaults as an options mapping; nothing here reads the inventory.
"""
