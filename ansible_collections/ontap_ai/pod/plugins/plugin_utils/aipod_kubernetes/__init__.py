"""The Kubernetes and Trident layers: what they derive from the site model, and their rules.

Built on the generic views of aipod_site.model, one module per part:

- deepops: the cluster's hosts and networks and the DeepOps inventory (who is control plane, etcd
  and worker, on which address), where the cluster's kubeconfig is, and the networks Trident may
  export volumes to;
- trident: the Trident plan (credential Secrets, one TridentBackendConfig per backend,
  StorageClasses, the VolumeSnapshotClass);
- apply: what applying the plan would change on the cluster (StorageClasses to replace, the
  credentials Secrets, pending server-side applies, the VolumeSnapshot API);
- verify: the judges of the layer's verification;
- rules and trident_rules: the layers' validation rules, which aipod_validation assembles.

The roles reach these through the filters of plugins/filter/aipod_kubernetes.py and the validator
checks the model through the same functions, so the rule and the manifest cannot drift apart.
Import from the module itself (e.g. `from ...aipod_kubernetes.trident import trident_plan`);
this package re-exports nothing.

Like aipod_site.model, every function is defensive on malformed models (the schema reports those).
"""
