"""The reports a run writes from what the layers found: verification, drift, acceptance and the
air-gap artefact list. They read the layers' results; no layer imports them.
"""
