"""The data sets layer: the volumes data scientists train on, with their versions, consumers and
copies, as the site model declares them (model.py), and the layer's validation rules (rules.py).
"""
