"""The lab's ONTAP REST endpoint: a stateful HTTPS server the unchanged netapp.ontap modules talk to.

Layout (one concern per module):

* ``errors``     ONTAP's error style (HTTP status plus ``error.code``/``error.message``).
* ``schemas``    request bodies and response records checked against NetApp's ``netapp_ontap`` schemas.
* ``query``      ``fields=`` selection, query filters and paging of collection GETs.
* ``state``      the cluster's objects, persisted to one JSON file; the realiser hook.
* ``seed``       a fresh cluster built from the lab inventory (nodes, ports, aggregates, Default IPspace).
* ``resources``  one module per API area: what each endpoint accepts and what it changes.
* ``api``        routing, authentication and authorisation, jobs: request in, response out (no sockets).
* ``service``    HTTPS, fault injection, the call log and the admin endpoints under ``/lab/``.
* ``cli``        ``python -m ontap_lab serve|up|down|status|ctl``.
"""
ONTAP_VERSION = {"generation": 9, "major": 14, "minor": 1,
                 "full": "NetApp Release 9.14.1: (lab endpoint of the ONTAP AI pod bundle)"}


def ontap_version(release: object = None) -> dict:
    """The cluster's ``version`` record: the release a site model declares (``ontap.version``), else 9.14.1."""
    parts = str(release or "").split(".")
    if len(parts) != 3 or not all(part.isdigit() for part in parts):
        return dict(ONTAP_VERSION)
    generation, major, minor = (int(part) for part in parts)
    return {"generation": generation, "major": major, "minor": minor,
            "full": f"NetApp Release {release}: (lab endpoint of the ONTAP AI pod bundle)"}
