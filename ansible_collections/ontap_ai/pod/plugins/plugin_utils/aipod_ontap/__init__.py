"""The storage layer's reconciliation logic: which ONTAP objects differ from the site model."""
