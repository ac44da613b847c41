#!/usr/bin/python3
"""Offline checks of nhsim's Kubernetes manifests (deploy/k8s), run by check-k8s-manifests.

No cluster is needed. Two kinds of checks, over sets of manifests that are applied together:

* Schema: every object is walked against the Kubernetes API types as generated into Debian's
  python3-kubernetes (22.6.0: the Kubernetes 1.22 API): unknown fields (typos), wrong types
  (e.g. an annotation or a label that is a number), missing required fields. Fields newer than
  that API (the gRPC probe) and the Prometheus Operator's ServiceMonitor are described below in
  OVERLAY_FIELDS and OVERLAY_TYPES.
* Semantics: the cross-references the API server does not check (selectors that match the pods,
  probes and Service ports that name declared container ports, volumes and claims that exist,
  the addresses nhsimd listens on, the $(VAR) of command lines), the security context,
  resources, images, the Indexed Job's shard count and the merge Job's inputs.
* Sizing of nhsimd: its admitted peak memory (from its flags, with the bound documented in
  docs/operations.md, "Admission control") within the pod's memory limit, its threads within the
  CPU limit, the store volume large enough for the results it keeps; and the values equal to the
  one set of limits they come from (deploy/k8s/limits.yaml).

Usage: check_k8s_manifests.py --repo DIR --set NAME FILE... [--set NAME FILE...]
Prints what it checked; exits 1 with one FAIL line per problem.
"""

import collections
import fnmatch
import inspect
import json
import os
import re
import shlex
import sys

import yaml

try:
    import kubernetes
    from kubernetes.client import models as k8s_models
except ImportError:  # reported by main(), with the package to install
    k8s_models = None

# --------------------------------------------------------------------------------------------
# Schema

# (apiVersion, kind) -> type name (a python3-kubernetes model class or an OVERLAY_TYPES entry).
KINDS = {
    ("v1", "ConfigMap"): "V1ConfigMap",
    ("v1", "PersistentVolumeClaim"): "V1PersistentVolumeClaim",
    ("v1", "Pod"): "V1Pod",
    ("v1", "Service"): "V1Service",
    ("apps/v1", "Deployment"): "V1Deployment",
    ("batch/v1", "Job"): "V1Job",
    ("networking.k8s.io/v1", "NetworkPolicy"): "V1NetworkPolicy",
    ("monitoring.coreos.com/v1", "ServiceMonitor"): "MonitoringV1ServiceMonitor",
}

# Fields added to the Kubernetes API after python3-kubernetes 22.6.0 (used only when the
# installed package lacks them): type name -> {JSON field: type}.
OVERLAY_FIELDS = {
    "V1Probe": {"grpc": "V1GRPCAction"},  # gRPC probes: Kubernetes 1.24 beta, 1.27 GA
}

# Types absent from python3-kubernetes: name -> (fields {JSON field: type}, required fields).
OVERLAY_TYPES = {
    "V1GRPCAction": ({"port": "int", "service": "str"}, {"port"}),
    # Prometheus Operator CRD, the fields of monitoring.coreos.com/v1 ServiceMonitor used here
    # and their usual neighbours (https://prometheus-operator.dev/docs/api-reference/api/).
    "MonitoringV1ServiceMonitor": (
        {"apiVersion": "str", "kind": "str", "metadata": "V1ObjectMeta",
         "spec": "MonitoringV1ServiceMonitorSpec"},
        {"apiVersion", "kind", "metadata", "spec"}),
    "MonitoringV1ServiceMonitorSpec": (
        {"selector": "V1LabelSelector", "endpoints": "list[MonitoringV1Endpoint]",
         "namespaceSelector": "MonitoringV1NamespaceSelector", "jobLabel": "str",
         "targetLabels": "list[str]", "podTargetLabels": "list[str]", "sampleLimit": "int"},
        {"selector", "endpoints"}),
    "MonitoringV1Endpoint": (
        {"port": "str", "targetPort": "object", "path": "str", "scheme": "str",
         "interval": "str", "scrapeTimeout": "str", "honorLabels": "bool",
         "honorTimestamps": "bool", "params": "dict(str, list[str])",
         "relabelings": "list[object]", "metricRelabelings": "list[object]"},
        set()),
    "MonitoringV1NamespaceSelector": ({"any": "bool", "matchNames": "list[str]"}, set()),
}

_REQUIRED = re.compile(r"Invalid value for `(\w+)`, must not be `None`")
_type_cache = {}


def type_fields(type_name):
    """(fields {JSON name: type}, required JSON names) of a model type, or None if unknown."""
    if type_name in _type_cache:
        return _type_cache[type_name]
    result = None
    cls = getattr(k8s_models, type_name, None)
    if cls is not None and hasattr(cls, "openapi_types"):
        fields = {cls.attribute_map[a]: t for a, t in cls.openapi_types.items()}
        # Required fields are those whose setter refuses None (the generated client's check).
        required = {cls.attribute_map[a] for a in _REQUIRED.findall(inspect.getsource(cls))
                    if a in cls.attribute_map}
        for name, typ in OVERLAY_FIELDS.get(type_name, {}).items():
            fields.setdefault(name, typ)
        result = (fields, required)
    elif type_name in OVERLAY_TYPES:
        fields, required = OVERLAY_TYPES[type_name]
        result = (dict(fields), set(required))
    _type_cache[type_name] = result
    return result


def describe(value):
    return type(value).__name__ if value is not None else "null"


def check_schema(value, typ, path, errors, in_quantities=False):
    """Walks `value` against the type `typ` (python3-kubernetes notation)."""
    if value is None:
        errors.append(f"{path}: empty value (null) where {typ} is expected")
        return
    if typ.startswith("list["):
        if not isinstance(value, list):
            errors.append(f"{path}: expected a list ({typ}), found {describe(value)}")
            return
        for k, item in enumerate(value):
            check_schema(item, typ[5:-1], f"{path}[{k}]", errors, in_quantities)
        return
    if typ.startswith("dict("):
        if not isinstance(value, dict):
            errors.append(f"{path}: expected a map ({typ}), found {describe(value)}")
            return
        inner = typ[typ.index(",") + 1:-1].strip()
        for key, item in value.items():
            if not isinstance(key, str):
                errors.append(f"{path}: key {key!r} is not a string (quote it)")
            check_schema(item, inner, f"{path}.{key}", errors, in_quantities)
        return
    if typ == "str":
        # A resource quantity may be written as a number (cpu: 2); nothing else may.
        if isinstance(value, bool) or not isinstance(value, (str, int, float) if in_quantities
                                                     else str):
            errors.append(f"{path}: expected a string, found {describe(value)} {value!r}"
                          " (quote it)")
        return
    if typ == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            errors.append(f"{path}: expected an integer, found {describe(value)} {value!r}")
        return
    if typ == "bool":
        if not isinstance(value, bool):
            errors.append(f"{path}: expected true or false, found {describe(value)} {value!r}")
        return
    if typ in ("object", "datetime", "float"):
        return
    fields = type_fields(typ)
    if fields is None:
        errors.append(f"{path}: the checker has no schema for type {typ}")
        return
    if not isinstance(value, dict):
        errors.append(f"{path}: expected an object ({typ}), found {describe(value)}")
        return
    known, required = fields
    for key, item in value.items():
        if key not in known:
            errors.append(f"{path}: unknown field {key!r} in {typ}"
                          f" (known: {', '.join(sorted(known))})")
            continue
        check_schema(item, known[key], f"{path}.{key}", errors,
                     in_quantities=typ == "V1ResourceRequirements")
    for key in sorted(required - set(value)):
        errors.append(f"{path}: required field {key!r} of {typ} is missing")


# --------------------------------------------------------------------------------------------
# Helpers for the semantic checks

DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1"}
# $(NAME) in a container's command or args: Kubernetes replaces it with the env var NAME, and
# leaves it as it is when there is no such variable ($$(NAME) escapes it).
ENV_REFERENCE = re.compile(r"(?<!\$)\$\(([A-Za-z_][A-Za-z0-9_]*)\)")

# nhsimd's memory bound (docs/operations.md, "Admission control"): a job peaks below
# PEAK_FACTOR x the statistics memory admission estimates (at most --max-job-memory-mb), plus
# PROCESS_MIB for the process (tested: RunMergeTest.PeakMemoryStaysUnderTheAdmissionEstimate).
PEAK_FACTOR = 1.5
PROCESS_MIB = 64
# Memory for reading finished results, which nhsimd reads from its store when a client asks
# (none is held in memory): the GetResult calls answering at once hold at most READ_COPIES x
# --max-message-mb in all, a call beyond waits (the ReadBudget unary_reads_ in
# server/service.cpp).
READ_COPIES = 4
# What one open StreamResult holds (a batch of 2 MiB read from the store, a piece of 512 KiB and
# gRPC's copy of it) and one open WatchJob, at most --max-result-streams and --max-watchers of
# them (measured by bench/stream-limits: 64 stalled streams 191 MiB, 1000 watches 34-44 MiB).
STREAM_MIB = 3
WATCH_MIB = 48 / 1024
# What one queued job holds: its record (a label of at most 1 KiB among it); its request and
# spec are in the store until it starts (measured by bench/queue-memory).
QUEUED_MIB = 8 / 1024
# nhsimd's --drain-seconds default (server/main.cpp) and Kubernetes' terminationGracePeriodSeconds
# default: the kubelet sends SIGKILL once the grace period ends, so it must outlast the drain.
DRAIN_SECONDS = 20
GRACE_SECONDS = 30
# The store's margin beyond what the limits bound, as a share of the claim: the file system's own
# reserve (ext4 keeps 5% for root; nhsimd runs as uid 65534) and the stored requests.
STORE_RESERVE = 0.10
# The gRPC health service names nhsimd serves (Server::set_serving in server/server.cpp), and
# the probes that must ask for each. "" (the server as a whole) stays SERVING for as long as the
# process serves and turns NOT_SERVING only while it shuts down: for liveness and startup, which
# restart the container. nhsim.v1.EnsembleService also turns NOT_SERVING while its jobs cannot
# make progress (the store is unwritable or full, the executor is broken): for readiness, which
# takes the pod out of the Services' endpoints; as liveness it would restart the pod in a loop
# on a full store, which a restart does not cure.
SERVER_HEALTH_NAME = ""
SERVICE_HEALTH_NAME = "nhsim.v1.EnsembleService"
NHSIMD_HEALTH_NAMES = (SERVER_HEALTH_NAME, SERVICE_HEALTH_NAME)
PROBE_HEALTH_NAMES = {"startupProbe": SERVER_HEALTH_NAME, "livenessProbe": SERVER_HEALTH_NAME,
                      "readinessProbe": SERVICE_HEALTH_NAME}
# The keys of the limits ConfigMap (label app.kubernetes.io/component: limits) and where
# nhsimd's Deployment uses each: ("flag", option) | ("resource", kind, resource) | ("store",)
# (the claim mounted at --data-dir).
LIMIT_KEYS = {
    "max-running-jobs": [("flag", "--max-running-jobs")],
    "threads": [("flag", "--threads")],
    "max-job-memory-mb": [("flag", "--max-job-memory-mb")],
    "max-result-mb": [("flag", "--max-result-mb")],
    "max-message-mb": [("flag", "--max-message-mb")],
    "max-result-streams": [("flag", "--max-result-streams")],
    "max-watchers": [("flag", "--max-watchers")],
    "max-queued-jobs": [("flag", "--max-queued-jobs")],
    "keep-finished-for": [("flag", "--keep-finished-for")],
    "keep-finished-mb": [("flag", "--keep-finished-mb")],
    "keep-finished-jobs": [("flag", "--keep-finished-jobs")],
    "cpu-request": [("resource", "requests", "cpu")],
    "cpu-limit": [("resource", "limits", "cpu")],
    "memory": [("resource", "requests", "memory"), ("resource", "limits", "memory")],
    "store-size": [("store",)],
}


def quantity(text):
    """A Kubernetes quantity (500m, 2, 1Gi, 512M) as a float, or None if it does not parse."""
    match = re.fullmatch(r"([0-9.]+)(m|k|M|G|T|Ki|Mi|Gi|Ti)?", str(text))
    if not match:
        return None
    scale = {None: 1, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "Ki": 2**10,
             "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}[match.group(2)]
    return float(match.group(1)) * scale


def selects(selector, labels):
    """Whether matchLabels `selector` (non-empty) selects an object with `labels`."""
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def get(obj, *keys, default=None):
    for key in keys:
        if not isinstance(obj, dict) or key not in obj:
            return default
        obj = obj[key]
    return obj


def container_argv(container):
    """The container's command line as a list of words; `sh -c SCRIPT` is split with shlex."""
    argv = [str(a) for a in (container.get("command") or []) + (container.get("args") or [])]
    if len(argv) >= 3 and argv[0] in ("sh", "/bin/sh", "bash", "/bin/bash") and argv[1] == "-c":
        script = argv[2]
        if script.startswith("exec "):
            script = script[5:]
        return shlex.split(script) + argv[3:]
    return argv


def positional(words):
    """The words that are neither options nor option values (nhsim's options all take one)."""
    result, skip = [], False
    for word in words:
        if skip:
            skip = False
        elif word.startswith("--"):
            skip = "=" not in word
        else:
            result.append(word)
    return result


def flag(argv, name):
    """The value of `--name VALUE` in argv, or None."""
    for k, word in enumerate(argv[:-1]):
        if word == name:
            return argv[k + 1]
    return None


def number(text):
    """A non-negative decimal number as a float, or None."""
    return float(text) if text is not None and re.fullmatch(r"[0-9]+(\.[0-9]+)?", text) else None


def duration_seconds(text):
    """nhsimd's --keep-finished-for (a number with unit s, m, h or d; none: seconds), or None."""
    match = re.fullmatch(r"([0-9]+)([smhd]?)", text or "")
    if not match:
        return None
    return int(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[match.group(2)]


def mib(text):
    """A memory or storage quantity in MiB, or None."""
    value = quantity(text)
    return None if value is None else value / 2**20


def substitute(text, values):
    """`text` with each $(NAME) that `values` has replaced by its value."""
    return ENV_REFERENCE.sub(lambda m: values.get(m.group(1), m.group(0)), text)


# A pod as a Deployment's or Job's template describes it, or a bare Pod.
PodTemplate = collections.namedtuple("PodTemplate", "where spec labels annotations owner")
# Where a path in a pod lies: source ("claim" | "configMap" | "other", name), the volumeMount,
# and the path inside the volume.
Mount = collections.namedtuple("Mount", "source mount inner")


class Manifests:
    """One set of manifests that are applied together (cross-references resolve within it)."""

    def __init__(self, name, repo):
        self.name = name
        self.repo = repo
        self.objects = []  # (source, object)
        self.errors = []
        self.checked = []
        self.images = []  # (where, image, imagePullPolicy) of every container

    def fail(self, where, message):
        self.errors.append(f"{self.name}: {where}: {message}")

    def ok(self, where, message, since):
        """Records a passed check, unless errors were found since len(errors) was `since`."""
        if len(self.errors) == since:
            self.checked.append(f"{self.name}: {where}: {message}")

    def load(self, path, label=None):
        with open(path, encoding="utf-8") as f:
            try:
                documents = list(yaml.safe_load_all(f))
            except yaml.YAMLError as error:
                self.fail(path, f"not YAML: {error}")
                return
        for document in documents:
            if document is None:
                continue
            if not isinstance(document, dict):
                self.fail(path, "a document is not a mapping")
                continue
            self.objects.append((label or path, document))

    def of_kind(self, kind):
        return [o for _, o in self.objects if o.get("kind") == kind]

    def pod_templates(self):
        """PodTemplate of every Deployment, Job and Pod."""
        for _, obj in self.objects:
            kind = obj.get("kind")
            if kind in ("Deployment", "Job"):
                pod = get(obj, "spec", "template", default={}) or {}
            elif kind == "Pod":
                pod = obj
            else:
                continue
            yield PodTemplate(f"{kind}/{get(obj, 'metadata', 'name')}", pod.get("spec") or {},
                              get(pod, "metadata", "labels", default={}) or {},
                              get(pod, "metadata", "annotations", default={}) or {}, obj)

    # ----------------------------------------------------------------------------------------

    def check(self):
        self.check_objects()
        if self.errors:  # the semantic checks assume well-formed objects
            return
        for pod in self.pod_templates():
            self.check_pod(pod)
        for obj in self.of_kind("Deployment"):
            self.check_deployment(obj)
        for obj in self.of_kind("Service"):
            self.check_service(obj)
        for obj in self.of_kind("NetworkPolicy"):
            self.check_network_policy(obj)
        for obj in self.of_kind("ServiceMonitor"):
            self.check_service_monitor(obj)
        for obj in self.of_kind("PersistentVolumeClaim"):
            self.check_pvc(obj)
        for obj in self.of_kind("ConfigMap"):
            self.check_config_map(obj)
        self.check_batch_pair()

    def check_objects(self):
        seen = set()
        for source, obj in self.objects:
            api_version, kind = obj.get("apiVersion"), obj.get("kind")
            name = get(obj, "metadata", "name")
            where = f"{source}: {kind}/{name}"
            start = len(self.errors)
            type_name = KINDS.get((api_version, kind))
            if type_name is None:
                known = ", ".join(f"{a} {k}" for a, k in sorted(KINDS))
                self.fail(where, f"unknown apiVersion/kind {api_version} {kind} (known: {known})")
                continue
            if not isinstance(name, str) or not name:
                self.fail(where, "metadata.name is missing")
                continue
            pattern = DNS_LABEL if kind in ("Service", "Pod") else DNS_SUBDOMAIN
            limit = 63 if kind in ("Service", "Pod") else 253
            if not pattern.match(name) or len(name) > limit:
                self.fail(where, f"metadata.name {name!r} is not a valid {kind} name")
            if get(obj, "metadata", "namespace") is not None:
                self.fail(where, "metadata.namespace is set; leave it to `kubectl -n`")
            if (kind, name) in seen:
                self.fail(where, "defined twice")
            seen.add((kind, name))
            errors = []
            check_schema(obj, type_name, kind, errors)
            for error in errors:
                self.fail(where, error)
            self.ok(where, f"schema {type_name}: fields, types and required fields", start)

    def check_pod(self, pod):
        where, spec, labels, annotations = pod.where, pod.spec, pod.labels, pod.annotations
        start = len(self.errors)
        volumes = {v.get("name"): v for v in spec.get("volumes") or []}
        mounted = {m.get("name") for c in spec.get("containers") or []
                   for m in c.get("volumeMounts") or []}
        if not labels:
            self.fail(where, "the pod has no labels")
        security = spec.get("securityContext") or {}
        if security.get("runAsNonRoot") is not True:
            self.fail(where, "pod securityContext.runAsNonRoot is not true")
        if not isinstance(security.get("runAsUser"), int) or security.get("runAsUser") == 0:
            self.fail(where, "pod securityContext.runAsUser is not a non-zero uid")
        if get(security, "seccompProfile", "type") not in ("RuntimeDefault", "Localhost"):
            self.fail(where, "pod securityContext.seccompProfile.type is not RuntimeDefault")
        if spec.get("automountServiceAccountToken") is not False:
            self.fail(where, "automountServiceAccountToken is not false (nhsim needs no API "
                      "access)")
        for name, volume in volumes.items():
            if name not in mounted:
                self.fail(where, f"volume {name!r} is mounted by no container")
            claim = get(volume, "persistentVolumeClaim", "claimName")
            if claim is not None and not self.find("PersistentVolumeClaim", claim):
                self.fail(where, f"volume {name!r}: PersistentVolumeClaim {claim!r} is not "
                          "defined in this set")
            config_map = get(volume, "configMap", "name")
            if config_map is not None and not self.find("ConfigMap", config_map):
                self.fail(where, f"volume {name!r}: ConfigMap {config_map!r} is not defined "
                          "in this set")
        self.ok(where, "pod securityContext non-root, volumes defined and mounted, claims and "
                "ConfigMaps exist", start)
        self.check_run_time(pod)
        for container in spec.get("containers") or []:
            container_where = f"{where} container {container.get('name')}"
            self.check_container(container_where, container, volumes)
            self.check_env_references(container_where, container, pod)
            if container_argv(container)[:1] == ["nhsimd"]:
                self.check_nhsimd_sizing(container_where, container, pod)
        if annotations.get("prometheus.io/scrape") == "true":
            start = len(self.errors)
            ports = {p.get("containerPort") for c in spec.get("containers") or []
                     for p in c.get("ports") or []}
            port = annotations.get("prometheus.io/port")
            if not (isinstance(port, str) and port.isdigit() and int(port) in ports):
                self.fail(where, f"annotation prometheus.io/port {port!r} is not a declared "
                          f"containerPort ({sorted(ports)})")
            if not str(annotations.get("prometheus.io/path", "/metrics")).startswith("/"):
                self.fail(where, "annotation prometheus.io/path does not start with /")
            self.ok(where, f"prometheus.io annotations name container port {port}", start)

    def check_container(self, where, container, volumes):
        start = len(self.errors)
        security = container.get("securityContext") or {}
        if security.get("readOnlyRootFilesystem") is not True:
            self.fail(where, "securityContext.readOnlyRootFilesystem is not true")
        if security.get("allowPrivilegeEscalation") is not False:
            self.fail(where, "securityContext.allowPrivilegeEscalation is not false")
        if security.get("privileged"):
            self.fail(where, "securityContext.privileged is true")
        if "ALL" not in (get(security, "capabilities", "drop") or []):
            self.fail(where, "securityContext.capabilities.drop does not contain ALL")
        if get(security, "capabilities", "add"):
            self.fail(where, "securityContext.capabilities.add is not empty")
        if get(security, "runAsUser") == 0:
            self.fail(where, "securityContext.runAsUser is 0")

        resources = container.get("resources") or {}
        for kind in ("requests", "limits"):
            for resource in ("cpu", "memory"):
                value = get(resources, kind, resource)
                if value is None or quantity(value) is None:
                    self.fail(where, f"resources.{kind}.{resource} is missing or not a quantity")
        for resource in ("cpu", "memory"):
            request = quantity(get(resources, "requests", resource, default=""))
            limit = quantity(get(resources, "limits", resource, default=""))
            if request is not None and limit is not None and request > limit:
                self.fail(where, f"resources: {resource} request above its limit")

        image, policy = container.get("image", ""), container.get("imagePullPolicy")
        self.images.append((where, image, policy))
        tag = image.rpartition(":")[2] if ":" in image.rsplit("/", 1)[-1] else ""
        if "@sha256:" not in image and (not tag or tag == "latest"):
            self.fail(where, f"image {image!r} has no explicit tag (or `latest`): nodes would "
                      "run whichever build they pulled last; name a version")
        if policy not in ("IfNotPresent", "Always", "Never"):
            self.fail(where, "imagePullPolicy is not set (its default depends on the tag)")

        ports = container.get("ports") or []
        by_number = {p.get("containerPort") for p in ports}
        by_name = {p.get("name") for p in ports if p.get("name")}
        if len(by_name) != len([p for p in ports if p.get("name")]):
            self.fail(where, "two container ports have the same name")
        for name in by_name:
            if len(name) > 15 or not DNS_LABEL.match(name):
                self.fail(where, f"port name {name!r} is not an IANA_SVC_NAME (<= 15 chars)")

        argv = container_argv(container)
        program = os.path.basename(argv[0]) if argv else ""
        if program in ("nhsim", "nhsimd"):
            threads = flag(argv, "--threads")
            cpu_limit = quantity(get(resources, "limits", "cpu", default=""))
            if threads is None or not threads.isdigit() or int(threads) < 1:
                self.fail(where, "nhsim/nhsimd without --threads N >= 1 (0 means every core "
                          "of the node, beyond the CPU limit)")
            elif (program == "nhsim" and cpu_limit is not None
                  and int(threads) > max(1, int(cpu_limit + 0.999))):
                self.fail(where, f"--threads {threads} is above the CPU limit {cpu_limit:g}")
            # nhsimd: --threads is per job, checked with --max-running-jobs (check_nhsimd_sizing)
        if program == "nhsimd":
            listen_start = len(self.errors)
            for option, port_name in (("--listen", "grpc"), ("--health-listen", "health"),
                                      ("--metrics", "metrics")):
                address = flag(argv, option)
                if address is None and option == "--health-listen":
                    continue  # optional: the probes then use --listen
                if address is None:
                    self.fail(where, f"nhsimd without {option} (its default is loopback, "
                              "unreachable from probes, Services and Prometheus)")
                    continue
                host, _, port = address.rpartition(":")
                if host in LOOPBACK_HOSTS:
                    self.fail(where, f"{option} {address} is a loopback address")
                if not port.isdigit() or int(port) not in by_number:
                    self.fail(where, f"{option} {address}: port is not a declared containerPort")
                elif port_name not in by_name or int(port) != next(
                        p["containerPort"] for p in ports if p.get("name") == port_name):
                    self.fail(where, f"{option} {address}: container port {port_name!r} does "
                              "not name this port")
            self.ok(where, "nhsimd listens on non-loopback addresses at its declared ports",
                    listen_start)
            auth_start = len(self.errors)
            tokens = flag(argv, "--tokens-file")
            if tokens is None and "--insecure" not in argv:
                self.fail(where, "nhsimd on a non-loopback --listen without --tokens-file (or "
                          "--insecure) refuses to start")
            elif tokens is not None:
                mounts = [m for m in container.get("volumeMounts") or []
                          if tokens.startswith(m.get("mountPath", "").rstrip("/") + "/")]
                if not mounts:
                    self.fail(where, f"--tokens-file {tokens} is on no volumeMount")
                elif "secret" not in volumes.get(mounts[0].get("name"), {}):
                    self.fail(where, f"--tokens-file {tokens}: volume "
                              f"{mounts[0].get('name')!r} is not a Secret")
            self.ok(where, "nhsimd requires bearer tokens, read from a Secret", auth_start)

        probes_start = len(self.errors)
        health_option = "--health-listen" if flag(argv, "--health-listen") else "--listen"
        health_port = (flag(argv, health_option) or "").rpartition(":")[2]
        for probe_name in ("startupProbe", "readinessProbe", "livenessProbe"):
            probe = container.get(probe_name)
            if probe is None:
                if program == "nhsimd":
                    self.fail(where, f"{probe_name} is missing")
                continue
            if program == "nhsimd" and probe_name == "readinessProbe" and "grpc" not in probe:
                self.fail(where, "readinessProbe is not nhsimd's gRPC health (which says when "
                          "its jobs cannot make progress)")
            if program == "nhsimd" and probe_name == "livenessProbe" and "grpc" not in probe:
                self.fail(where, "livenessProbe is not nhsimd's gRPC health of \"\" (a TCP "
                          "connect, which the kernel completes, does not detect an nhsimd that "
                          "no longer answers)")
            service = get(probe, "grpc", "service", default="")
            if program == "nhsimd" and "grpc" in probe and service in NHSIMD_HEALTH_NAMES \
                    and service != PROBE_HEALTH_NAMES[probe_name]:
                if service == SERVICE_HEALTH_NAME:
                    self.fail(where, f"{probe_name}.grpc.service is {SERVICE_HEALTH_NAME}, which "
                              "nhsimd turns NOT_SERVING while its jobs cannot make progress (its "
                              "store is unwritable or full): the kubelet would restart the pod "
                              "in a loop; ask for \"\" (the server as a whole)")
                else:
                    self.fail(where, f"{probe_name}.grpc.service is \"\" (the server as a whole, "
                              "SERVING while nhsimd serves): the pod would stay in the Services' "
                              "endpoints while its jobs cannot make progress; ask for "
                              f"{SERVICE_HEALTH_NAME}")
            if "grpc" in probe:
                port = probe["grpc"].get("port")
                # Probes speak plaintext without a token: the health-only port when there is
                # one (the main port may require TLS).
                option = "--health-listen" if flag(argv, "--health-listen") else "--listen"
                health = flag(argv, option) or ""
                if port not in by_number:
                    self.fail(where, f"{probe_name}.grpc.port {port} is not a declared "
                              f"containerPort ({sorted(by_number)})")
                elif program == "nhsimd" and health.rpartition(":")[2] != str(port):
                    self.fail(where, f"{probe_name}.grpc.port {port} is not nhsimd's health "
                              f"port ({option} {health})")
                if service not in NHSIMD_HEALTH_NAMES:
                    self.fail(where, f"{probe_name}.grpc.service {service!r}: nhsimd reports "
                              f"health for \"\" and {SERVICE_HEALTH_NAME} only")
            for action in ("httpGet", "tcpSocket"):
                if action in probe:
                    port = probe[action].get("port")
                    if port not in by_number and port not in by_name:
                        self.fail(where, f"{probe_name}.{action}.port {port!r} is not a "
                                  "declared container port")
                    elif program == "nhsimd" and action == "tcpSocket" and str(next(
                            (p["containerPort"] for p in ports
                             if port in (p.get("name"), p.get("containerPort"))), "")) not in (
                                 health_port, (flag(argv, "--listen") or "").rpartition(":")[2]):
                        self.fail(where, f"{probe_name}.tcpSocket.port {port!r} is not a port "
                                  "nhsimd listens on (--health-listen or --listen)")
            if "exec" in probe:
                self.fail(where, f"{probe_name}: exec probes need a tool the image lacks")
        if program == "nhsimd":
            startup = "gRPC \"\"" if "grpc" in (container.get("startupProbe") or {}) else "TCP"
            self.ok(where, f"probes on the health port: readiness gRPC {SERVICE_HEALTH_NAME} "
                    f"(NOT_SERVING while jobs cannot make progress), liveness gRPC \"\", startup "
                    f"{startup} (\"\" is NOT_SERVING only while nhsimd shuts down)", probes_start)

        for mount in container.get("volumeMounts") or []:
            if mount.get("name") not in volumes:
                self.fail(where, f"volumeMount {mount.get('name')!r} names no pod volume")
        self.ok(where, "container securityContext (read-only root, no privilege escalation, "
                f"capabilities dropped), requests and limits, image {image} ({policy})"
                + (", --threads within the CPU limit" if program == "nhsim" else ""),
                start)

    def check_run_time(self, pod):
        """A Job ends (activeDeadlineSeconds) and goes away (ttlSecondsAfterFinished); a bare
        Pod ends."""
        start = len(self.errors)
        kind = pod.owner.get("kind")
        owner_spec = pod.owner.get("spec") or {}
        if kind == "Job":
            for field in ("activeDeadlineSeconds", "ttlSecondsAfterFinished"):
                if not isinstance(owner_spec.get(field), int) or owner_spec[field] < 1:
                    self.fail(pod.where, f"spec.{field} is not set: " + (
                        "a stuck run would hold its pods and CPUs forever"
                        if field == "activeDeadlineSeconds"
                        else "the finished Job and its pods would stay until deleted by hand"))
            self.ok(pod.where, f"ends within {owner_spec.get('activeDeadlineSeconds')} s, deleted "
                    f"{owner_spec.get('ttlSecondsAfterFinished')} s after it finishes", start)
        elif kind == "Pod":
            if pod.spec.get("restartPolicy") != "Never" or not isinstance(
                    pod.spec.get("activeDeadlineSeconds"), int):
                self.fail(pod.where, "a bare Pod without restartPolicy Never and "
                          "activeDeadlineSeconds would run forever")
            self.ok(pod.where, f"ends within {pod.spec.get('activeDeadlineSeconds')} s", start)

    def env_values(self, container):
        """{name: value} of the container's env: literal values and ConfigMap keys found in this
        set (None when the value is not known here), and {name: (ConfigMap, key)} of the latter."""
        values, sources = {}, {}
        for env in container.get("env") or []:
            name = env.get("name")
            ref = get(env, "valueFrom", "configMapKeyRef")
            if "value" in env:
                values[name] = str(env["value"])
            elif ref is not None:
                sources[name] = (ref.get("name"), ref.get("key"))
                maps = self.find("ConfigMap", ref.get("name"))
                values[name] = (get(maps[0], "data", ref.get("key")) if maps else None)
            else:
                values[name] = None
        return values, sources

    def check_env_references(self, where, container, pod):
        """Every $(NAME) in the command line is an env var of the container (Kubernetes would
        leave it as it is), and every ConfigMap key an env var names exists."""
        start = len(self.errors)
        values, sources = self.env_values(container)
        known = set(values)
        if pod.owner.get("kind") == "Job" and get(pod.owner, "spec",
                                                  "completionMode") == "Indexed":
            known.add("JOB_COMPLETION_INDEX")  # set by the Job controller
        words = [str(w) for w in (container.get("command") or []) + (container.get("args") or [])]
        references = sorted({m for w in words for m in ENV_REFERENCE.findall(w)})
        for name in references:
            if name not in known:
                self.fail(where, f"$({name}) in its command line is not an env var of the "
                          "container: Kubernetes would pass it on as it is")
        for name, (config_map, key) in sorted(sources.items()):
            maps = self.find("ConfigMap", config_map)
            if not maps:
                self.fail(where, f"env {name}: ConfigMap {config_map!r} is not defined in this set")
            elif key not in (get(maps[0], "data") or {}):
                self.fail(where, f"env {name}: ConfigMap {config_map!r} has no key {key!r}")
        parts = ([", ".join(f"$({name})" for name in references) + " in its command line name "
                  "env vars of the container"] if references else []) + (
                      [f"{', '.join(sorted(sources))} from ConfigMap keys that exist"]
                      if sources else [])
        if parts:
            self.ok(where, "; ".join(parts), start)

    def check_nhsimd_sizing(self, where, container, pod):
        """nhsimd's admitted peak memory, threads and kept results fit its pod and store."""
        start = len(self.errors)
        argv = container_argv(container)
        resources = container.get("resources") or {}
        explicit = {}
        for option in ("--max-running-jobs", "--threads", "--max-job-memory-mb",
                       "--max-result-mb", "--max-message-mb", "--max-result-streams",
                       "--max-watchers", "--max-queued-jobs", "--keep-finished-for",
                       "--keep-finished-mb",
                       "--keep-finished-jobs"):
            value = flag(argv, option)
            if value is None:
                self.fail(where, f"nhsimd without an explicit {option}: its default is not sized "
                          "to this pod (deploy/k8s/limits.yaml)")
            explicit[option] = value
        jobs, threads = number(explicit["--max-running-jobs"]), number(explicit["--threads"])
        job_mib = number(explicit["--max-job-memory-mb"])
        result_mib = number(explicit["--max-result-mb"])
        message_mib = number(explicit["--max-message-mb"])
        streams = number(explicit["--max-result-streams"])
        watchers = number(explicit["--max-watchers"])
        queued = number(explicit["--max-queued-jobs"])
        kept_mib = number(explicit["--keep-finished-mb"])
        kept_jobs = number(explicit["--keep-finished-jobs"])
        for option, value in (("--max-running-jobs", jobs), ("--threads", threads),
                              ("--max-job-memory-mb", job_mib), ("--max-result-mb", result_mib),
                              ("--max-message-mb", message_mib),
                              ("--max-result-streams", streams), ("--max-watchers", watchers),
                              ("--max-queued-jobs", queued),
                              ("--keep-finished-mb", kept_mib),
                              ("--keep-finished-jobs", kept_jobs)):
            if explicit[option] is not None and not value:
                self.fail(where, f"{option} {explicit[option]!r} is not a number >= 1 (0 means "
                          "no limit: nothing would bound the pod's memory or its store)")
        if message_mib and not (message_mib.is_integer() and message_mib <= 2047):
            self.fail(where, f"--max-message-mb {explicit['--max-message-mb']!r} is not an "
                      "integer in 1..2047 (nhsimd refuses it)")
        if explicit["--keep-finished-for"] is not None and not duration_seconds(
                explicit["--keep-finished-for"]):
            self.fail(where, f"--keep-finished-for {explicit['--keep-finished-for']!r} is not a "
                      "number with unit s, m, h or d")
        if len(self.errors) != start:
            return
        drain = number(flag(argv, "--drain-seconds") or str(DRAIN_SECONDS))
        grace = pod.spec.get("terminationGracePeriodSeconds", GRACE_SECONDS)
        if drain is not None and not (isinstance(grace, int) and grace > drain):
            self.fail(where, f"terminationGracePeriodSeconds {grace!r} does not outlast "
                      f"--drain-seconds {drain:g}: the kubelet would kill nhsimd in its drain")
        memory_limit = mib(get(resources, "limits", "memory", default=""))
        peak = (PROCESS_MIB + jobs * PEAK_FACTOR * job_mib + READ_COPIES * message_mib +
                streams * STREAM_MIB + watchers * WATCH_MIB + queued * QUEUED_MIB)
        peak_text = (f"{PROCESS_MIB} + {jobs:g} jobs x {PEAK_FACTOR:g} x {job_mib:g} MiB + "
                     f"{READ_COPIES} result reads x {message_mib:g} MiB + {streams:g} result "
                     f"streams x {STREAM_MIB:g} MiB + {watchers:g} watches x "
                     f"{WATCH_MIB * 1024:g} KiB + {queued:g} queued jobs x "
                     f"{QUEUED_MIB * 1024:g} KiB = {peak:g} MiB")
        if memory_limit is not None and peak > memory_limit:
            self.fail(where, f"admitted peak memory {peak_text} exceeds the memory limit "
                      f"{get(resources, 'limits', 'memory')} ({memory_limit:g} MiB): the kernel "
                      "would kill nhsimd")
        cpu_limit = quantity(get(resources, "limits", "cpu", default=""))
        if cpu_limit is not None and jobs * threads > max(1, int(cpu_limit + 0.999)):
            self.fail(where, f"--max-running-jobs {jobs:g} x --threads {threads:g} = "
                      f"{jobs * threads:g} threads exceed the CPU limit {cpu_limit:g}")
        store = self.mount_of(pod, (flag(argv, "--data-dir") or "/nonexistent").rstrip("/") + "/")
        claims = self.find("PersistentVolumeClaim", store.source[1]) if store and \
            store.source[0] == "claim" else []
        store_mib = mib(get(claims[0], "spec", "resources", "requests", "storage",
                            default="")) if claims else None
        wal_mib = max(result_mib, job_mib)
        need = kept_mib + jobs * job_mib + wal_mib + result_mib
        reserve = STORE_RESERVE * (store_mib or 0)
        need_text = (f"--keep-finished-mb {kept_mib:g} MiB of results + {jobs:g} checkpoints x "
                     f"{job_mib:g} MiB + {wal_mib:g} MiB of write-ahead log + {result_mib:g} MiB "
                     f"(a newest result kept beyond --keep-finished-mb) + {STORE_RESERVE:.0%} of "
                     f"the claim ({reserve:g} MiB, the file system's reserve) = "
                     f"{need + reserve:g} MiB")
        if store_mib is None:
            self.fail(where, f"--data-dir {flag(argv, '--data-dir')} is not on a "
                      "PersistentVolumeClaim of this set with a size")
        elif need + reserve > store_mib:
            self.fail(where, f"the store needs {need_text}, more than its claim "
                      f"{store.source[1]} ({store_mib:g} MiB)")
        self.ok(where, f"admitted peak memory {peak_text} within the limit "
                f"{get(resources, 'limits', 'memory')}; {jobs * threads:g} threads within "
                f"{get(resources, 'limits', 'cpu')} CPUs; store {need + reserve:g} MiB within "
                f"{store_mib and f'{store_mib:g}'} MiB (results kept up to {kept_mib:g} MiB, "
                f"{kept_jobs:g} jobs, {explicit['--keep-finished-for']})", start)

    def find(self, kind, name):
        return [o for o in self.of_kind(kind) if get(o, "metadata", "name") == name]

    def selected_pods(self, selector):
        """Pod templates whose labels the matchLabels `selector` selects."""
        return [t for t in self.pod_templates() if selects(selector, t.labels)]

    def check_deployment(self, obj):
        where = f"Deployment/{obj['metadata']['name']}"
        start = len(self.errors)
        spec = obj["spec"]
        selector = get(spec, "selector", "matchLabels") or {}
        if get(spec, "selector", "matchExpressions"):
            self.fail(where, "selector.matchExpressions: the checker handles matchLabels only")
        labels = get(spec, "template", "metadata", "labels") or {}
        if not selects(selector, labels):
            self.fail(where, f"selector {selector} does not select the pod template's labels "
                      f"{labels}")
        else:
            self.ok(where, "selector matches the pod template's labels", start)
        for container in get(spec, "template", "spec", "containers") or []:
            if container_argv(container)[:1] == ["nhsimd"]:
                self.check_nhsimd_companions(where, labels)
                self.check_nhsimd_limits(where, obj, container)
        rwo_claims = [get(v, "persistentVolumeClaim", "claimName")
                      for v in get(spec, "template", "spec", "volumes") or []]
        rwo_claims = [c for c in rwo_claims if c and any(
            "ReadWriteOnce" in (get(p, "spec", "accessModes") or []) for p in
            self.find("PersistentVolumeClaim", c))]
        if rwo_claims:
            start = len(self.errors)
            if spec.get("replicas", 1) != 1:
                self.fail(where, f"replicas {spec.get('replicas')} share the ReadWriteOnce "
                          f"claim {rwo_claims[0]}")
            if get(spec, "strategy", "type") != "Recreate":
                self.fail(where, f"mounts the ReadWriteOnce claim {rwo_claims[0]}: a rolling "
                          "update cannot start the new pod on another node; use Recreate")
            self.ok(where, f"ReadWriteOnce claim {rwo_claims[0]}: one replica, Recreate", start)

    def check_nhsimd_companions(self, where, labels):
        """nhsimd's Deployment comes with a ClusterIP and a headless Service, a NetworkPolicy
        and a ServiceMonitor, all selecting its pods (or its Service)."""
        start = len(self.errors)
        services = [s for s in self.of_kind("Service")
                    if selects(get(s, "spec", "selector") or {}, labels)]
        if not any(get(s, "spec", "clusterIP") != "None" for s in services):
            self.fail(where, "no ClusterIP Service selects its pods")
        if not any(get(s, "spec", "clusterIP") == "None" for s in services):
            self.fail(where, "no headless Service (clusterIP: None) selects its pods, for "
                      "client-side round_robin")
        if not any(selects(get(n, "spec", "podSelector", "matchLabels") or {}, labels)
                   for n in self.of_kind("NetworkPolicy")):
            self.fail(where, "no NetworkPolicy selects its pods (nhsimd has no authentication "
                      "yet)")
        if not any(selects(get(m, "spec", "selector", "matchLabels") or {},
                           get(s, "metadata", "labels") or {})
                   for m in self.of_kind("ServiceMonitor") for s in services):
            self.fail(where, "no ServiceMonitor selects its Service")
        self.ok(where, "has a ClusterIP Service, a headless Service, a NetworkPolicy and a "
                "ServiceMonitor", start)

    def check_nhsimd_limits(self, where, obj, container):
        """Each value of the one set of limits (the ConfigMap labelled
        app.kubernetes.io/component: limits, deploy/k8s/limits.yaml) is the one nhsimd's
        Deployment uses, so that none is set anywhere else."""
        start = len(self.errors)
        limits = [m for m in self.of_kind("ConfigMap")
                  if get(m, "metadata", "labels", "app.kubernetes.io/component") == "limits"]
        if len(limits) != 1:
            self.fail(where, f"{len(limits)} ConfigMaps labelled app.kubernetes.io/component: "
                      "limits in this set, not one: the limits of nhsimd's pod must come from "
                      "one set (deploy/k8s/limits.yaml)")
            return
        name = limits[0]["metadata"]["name"]
        data = get(limits[0], "data") or {}
        argv = container_argv(container)
        template = get(obj, "spec", "template") or {}
        store = self.mount_of(PodTemplate(where, template.get("spec") or {}, {}, {}, obj),
                              (flag(argv, "--data-dir") or "/nonexistent").rstrip("/") + "/")
        for key in sorted(set(LIMIT_KEYS) - set(data)):
            self.fail(where, f"ConfigMap/{name} has no key {key!r}")
        for key in sorted(set(data) - set(LIMIT_KEYS)):
            self.fail(where, f"ConfigMap/{name}: key {key!r} is used nowhere (known: "
                      f"{', '.join(sorted(LIMIT_KEYS))})")
        for key, uses in LIMIT_KEYS.items():
            if key not in data:
                continue
            for use in uses:
                if use[0] == "flag":
                    place, value = f"nhsimd {use[1]}", flag(argv, use[1])
                elif use[0] == "resource":
                    place = f"resources.{use[1]}.{use[2]}"
                    value = get(container, "resources", use[1], use[2])
                else:
                    claims = (self.find("PersistentVolumeClaim", store.source[1])
                              if store and store.source[0] == "claim" else [])
                    place = f"the size of the store's claim {store and store.source[1]}"
                    value = get(claims[0], "spec", "resources", "requests",
                                "storage") if claims else None
                same = (str(value) == str(data[key]) or (
                    use[0] in ("resource", "store") and quantity(value) is not None
                    and quantity(value) == quantity(data[key])))
                if not same:
                    self.fail(where, f"{place} is {value!r}, not ConfigMap/{name}'s {key} "
                              f"{data[key]!r}: set it from there (kustomization.yaml's vars)")
        self.ok(where, f"nhsimd's flags, resources and store size are those of ConfigMap/{name}",
                start)

    def check_service(self, obj):
        where = f"Service/{obj['metadata']['name']}"
        start = len(self.errors)
        spec = obj["spec"]
        selector = spec.get("selector") or {}
        pods = self.selected_pods(selector)
        deployments = [p for p in pods if p.owner.get("kind") == "Deployment"]
        if not deployments:
            self.fail(where, f"selector {selector} selects no Deployment's pods")
            return
        if len(pods) != len(deployments):
            self.fail(where, f"selector {selector} also selects pods of "
                      f"{[p.where for p in pods if p not in deployments]}")
        if spec.get("type", "ClusterIP") != "ClusterIP":
            self.fail(where, f"type {spec.get('type')}: nhsimd has no authentication yet; keep "
                      "it cluster-internal")
        containers = [c for p in deployments for c in p.spec.get("containers") or []]
        for port in spec.get("ports") or []:
            target = port.get("targetPort", port.get("port"))
            found = [p for c in containers for p in c.get("ports") or []
                     if p.get("name") == target or p.get("containerPort") == target]
            if not found:
                self.fail(where, f"port {port.get('name')}: targetPort {target!r} is not a "
                          "container port of the selected pods")
            elif port.get("protocol", "TCP") != found[0].get("protocol", "TCP"):
                self.fail(where, f"port {port.get('name')}: protocol differs from the "
                          "container port's")
        if get(obj, "metadata", "annotations", "prometheus.io/scrape") == "true":
            scraped = [p.where for p in deployments
                       if p.annotations.get("prometheus.io/scrape") == "true"]
            if scraped:
                self.fail(where, f"prometheus.io annotations on the Service and on {scraped[0]}'s "
                          "pods: a Prometheus that discovers both would scrape each pod twice; "
                          "keep them on one")
        kind = "headless" if spec.get("clusterIP") == "None" else "ClusterIP"
        self.ok(where, f"{kind}; selector matches {deployments[0].where}'s pods; every targetPort "
                "is a declared container port", start)

    def check_network_policy(self, obj):
        where = f"NetworkPolicy/{obj['metadata']['name']}"
        start = len(self.errors)
        spec = obj["spec"]
        pods = self.selected_pods(get(spec, "podSelector", "matchLabels") or {})
        if not pods:
            self.fail(where, "podSelector selects no pods of this set")
            return
        if "Ingress" not in (spec.get("policyTypes") or []):
            self.fail(where, "policyTypes does not contain Ingress")
        containers = [c for p in pods for c in p.spec.get("containers") or []]
        declared = {(p.get("name"), p.get("containerPort")) for c in containers
                    for p in c.get("ports") or []}
        allowed = set()
        for k, rule in enumerate(spec.get("ingress") or []):
            if not rule.get("from"):
                self.fail(where, f"ingress[{k}] has no `from`: it admits every source")
            for peer in rule.get("from") or []:
                if "ipBlock" in peer:
                    self.fail(where, f"ingress[{k}]: ipBlock peers are not expected")
                if "namespaceSelector" in peer and not get(peer, "namespaceSelector",
                                                           "matchLabels"):
                    self.fail(where, f"ingress[{k}]: an empty namespaceSelector admits every "
                              "namespace")
            if not rule.get("ports"):
                self.fail(where, f"ingress[{k}] has no `ports`: it admits every port")
            for port in rule.get("ports") or []:
                match = [d for d in declared if port.get("port") in d]
                if not match:
                    self.fail(where, f"ingress[{k}]: port {port.get('port')!r} is not a "
                              "container port of the selected pods")
                allowed.update(match)
        for name, number in sorted(declared - allowed, key=str):
            if name == "health":  # for the kubelet's probes, which come from the node: a
                continue  # NetworkPolicy always admits those
            self.fail(where, f"container port {name} ({number}) is admitted by no rule")
        self.ok(where, f"selects {pods[0].where}'s pods; each rule names its sources and declared "
                "ports; every container port is covered", start)

    def check_service_monitor(self, obj):
        where = f"ServiceMonitor/{obj['metadata']['name']}"
        start = len(self.errors)
        selector = get(obj, "spec", "selector", "matchLabels") or {}
        services = [s for s in self.of_kind("Service")
                    if selects(selector, get(s, "metadata", "labels") or {})]
        if not services:
            self.fail(where, f"selector {selector} selects no Service of this set")
            return
        for endpoint in get(obj, "spec", "endpoints") or []:
            for service in services:
                names = {p.get("name") for p in get(service, "spec", "ports") or []}
                if endpoint.get("port") not in names:
                    self.fail(where, f"endpoint port {endpoint.get('port')!r} is not a port "
                              f"name of Service/{service['metadata']['name']} ({sorted(names)})")
        if not get(obj, "spec", "endpoints"):
            self.fail(where, "no endpoints")
        self.ok(where, f"selects Service/{services[0]['metadata']['name']}; endpoint ports are "
                "its port names", start)

    def check_pvc(self, obj):
        where = f"PersistentVolumeClaim/{obj['metadata']['name']}"
        start = len(self.errors)
        if not get(obj, "spec", "accessModes"):
            self.fail(where, "no accessModes")
        if quantity(get(obj, "spec", "resources", "requests", "storage", default="")) is None:
            self.fail(where, "resources.requests.storage is missing")
        users = [t for t in self.pod_templates()
                 if any(get(v, "persistentVolumeClaim", "claimName") == obj["metadata"]["name"]
                        for v in t.spec.get("volumes") or [])]
        if not users:
            self.fail(where, "mounted by no pod of this set")
        parallel = [t for t in users if t.owner.get("kind") == "Job" and
                    get(t.owner, "spec", "parallelism", default=1) > 1]
        if parallel and "ReadWriteMany" not in get(obj, "spec", "accessModes"):
            self.fail(where, f"{parallel[0].where} runs pods in parallel on it: it must be "
                      "ReadWriteMany")
        self.ok(where, f"access modes {get(obj, 'spec', 'accessModes')}, mounted by "
                f"{', '.join(sorted({t.where for t in users}))}", start)

    def check_config_map(self, obj):
        where = f"ConfigMap/{obj['metadata']['name']}"
        for key, text in (obj.get("data") or {}).items():
            if key.endswith(".json"):
                start = len(self.errors)
                try:
                    content = json.loads(text)
                except ValueError as error:
                    self.fail(where, f"{key} is not JSON: {error}")
                    continue
                source = get(obj, "metadata", "annotations", "nhsim/spec-source")
                if source:
                    with open(os.path.join(self.repo, source), encoding="utf-8") as f:
                        if json.load(f) != content:
                            self.fail(where, f"{key} differs from {source} (nhsim/spec-source)")
                            continue
                self.ok(where, f"{key} is JSON" + (f", equal to {source}" if source else ""),
                        start)

    @staticmethod
    def mount_of(pod, path):
        """The Mount of an absolute `path` in the pod's first container, or None."""
        container = (pod.spec.get("containers") or [{}])[0]
        volumes = {v["name"]: v for v in pod.spec.get("volumes") or []}
        root, mount = "", None
        for candidate in container.get("volumeMounts") or []:
            candidate_root = candidate["mountPath"].rstrip("/") + "/"
            if path.startswith(candidate_root) and len(candidate_root) > len(root):
                root, mount = candidate_root, candidate
        if mount is None:
            return None
        volume = volumes.get(mount["name"], {})
        if "persistentVolumeClaim" in volume:
            source = ("claim", get(volume, "persistentVolumeClaim", "claimName"))
        elif "configMap" in volume:
            source = ("configMap", get(volume, "configMap", "name"))
        else:
            source = ("other", mount["name"])
        return Mount(source, mount, path[len(root):])

    def check_batch_pair(self):
        shard_jobs, merge_jobs = [], []
        for template in self.pod_templates():
            argv = container_argv((template.spec.get("containers") or [{}])[0])
            if template.owner.get("kind") == "Job" and len(argv) > 1 and argv[0] == "nhsim":
                if argv[1] == "run":
                    shard_jobs.append((template, argv))
                elif argv[1] == "merge":
                    merge_jobs.append((template, argv))
        for template, argv in shard_jobs:
            where = template.where
            start = len(self.errors)
            spec = template.owner["spec"]
            if spec.get("completionMode") != "Indexed":
                self.fail(where, "nhsim run --shard in a Job without completionMode: Indexed")
            completions = spec.get("completions")
            if not isinstance(completions, int) or completions < 1:
                self.fail(where, "an Indexed Job needs completions >= 1")
                continue
            if not 1 <= spec.get("parallelism", 1) <= completions:
                self.fail(where, "parallelism is not within 1..completions")
            if spec.get("backoffLimit") is None:
                self.fail(where, "backoffLimit is not set")
            if template.spec.get("restartPolicy") not in ("Never", "OnFailure"):
                self.fail(where, "restartPolicy is not Never or OnFailure")
            shard = flag(argv, "--shard") or ""
            if shard != f"$(JOB_COMPLETION_INDEX)/{completions}":
                self.fail(where, f"--shard {shard!r} is not $(JOB_COMPLETION_INDEX)/{completions}"
                          " (completions)")
            out = flag(argv, "--out") or ""
            if "$(JOB_COMPLETION_INDEX)" not in out:
                self.fail(where, f"--out {out!r} does not contain $(JOB_COMPLETION_INDEX): the "
                          "shards would overwrite each other")
            spec_path = argv[2] if len(argv) > 2 else ""
            spec_mount = self.mount_of(template, spec_path)
            if spec_mount is None or spec_mount.source[0] != "configMap" or not any(
                    spec_mount.inner in (c.get("data") or {})
                    for c in self.find("ConfigMap", spec_mount.source[1])):
                self.fail(where, f"the spec {spec_path} is not a key of a mounted ConfigMap")
            out_mount = self.mount_of(template, out)
            if (out_mount is None or out_mount.source[0] != "claim"
                    or out_mount.mount.get("readOnly")):
                self.fail(where, f"--out {out} is not on a writable PersistentVolumeClaim")
            self.ok(where, f"Indexed, {completions} completions = N of --shard, parallelism "
                    f"{spec.get('parallelism', 1)}, backoffLimit {spec.get('backoffLimit')}, "
                    "spec from the ConfigMap, one part file per index on the claim", start)
            if not merge_jobs:
                self.fail(where, "no merge Job (nhsim merge) in this set")
            # The part files of this run, of a run with another name (the $(VAR)s of --out that
            # come from ConfigMap keys, changed) and of a run with N + 1 shards.
            shard_values, shard_sources = self.env_values(template.spec["containers"][0])
            other_values = {name: f"{shard_values.get(name)}-other" for name in shard_sources}
            by_source = {source: other_values[name] for name, source in shard_sources.items()}
            part = out_mount.inner if out_mount else ""
            index = "$(JOB_COMPLETION_INDEX)"
            this_run = [substitute(part.replace(index, str(i)), shard_values)
                        for i in (0, completions - 1)]
            other_run = substitute(part.replace(index, "0"), {**shard_values, **other_values})
            directory, _, name = part.rpartition("/")
            pieces = name.split(index)
            with_n = [k for k, piece in enumerate(pieces)
                      if re.search(rf"(?<![0-9]){completions}(?![0-9])", piece)]
            other_n = None
            if with_n:
                pieces[with_n[0]] = re.sub(rf"(?<![0-9]){completions}(?![0-9])",
                                           str(completions + 1), pieces[with_n[0]], count=1)
                other_n = substitute((directory + "/" if directory else "") + "0".join(pieces),
                                     shard_values)
            else:
                self.fail(where, f"--out {out}: the part file's name does not contain the number "
                          f"of shards ({completions}): a merge after a rerun with fewer shards "
                          "would also read the earlier run's parts")
            if other_run == this_run[0]:
                self.fail(where, f"--out {out} is not in a per-run directory (a $(VAR) from a "
                          "ConfigMap key naming the run): runs on the same volume would mix")
            for merge, merge_argv in merge_jobs:
                start = len(self.errors)
                inputs = positional(merge_argv[2:])
                merge_values, merge_sources = self.env_values(merge.spec["containers"][0])
                merge_other = {name: by_source.get(source, f"{merge_values.get(name)}-unrelated")
                               for name, source in merge_sources.items()}
                ok = bool(inputs)
                for pattern in inputs:
                    input_mount = self.mount_of(merge, pattern)
                    glob = substitute(input_mount.inner, merge_values) if input_mount else ""
                    if (input_mount is None or out_mount is None
                            or input_mount.source != out_mount.source
                            or not all(fnmatch.fnmatch(p, glob) for p in this_run)):
                        ok = False
                        self.fail(merge.where, f"input {pattern} does not match the part files "
                                  f"{where} writes ({out} on {out_mount and out_mount.source})")
                        continue
                    if other_run != this_run[0] and (
                            fnmatch.fnmatch(other_run, glob) or not fnmatch.fnmatch(
                                other_run, substitute(input_mount.inner,
                                                      {**merge_values, **merge_other}))):
                        ok = False
                        self.fail(merge.where, f"input {pattern} is not keyed by the run as "
                                  f"{where}'s --out {out} is (the same ConfigMap key): it would "
                                  "read another run's parts, or miss this run's")
                    if other_n is not None and fnmatch.fnmatch(other_n, glob):
                        ok = False
                        self.fail(merge.where, f"input {pattern} also matches {other_n}, a part "
                                  f"of a run with {completions + 1} shards: it must name the "
                                  f"number of shards ({completions})")
                for option in ("--json", "--csv", "--out"):
                    target = flag(merge_argv, option)
                    if target is not None:
                        target_mount = self.mount_of(merge, target)
                        if target_mount is None or target_mount.source[0] != "claim":
                            ok = False
                            self.fail(merge.where, f"{option} {target} is not on a volume claim: "
                                      "it would be lost with the pod")
                if flag(merge_argv, "--json") is None and flag(merge_argv, "--csv") is None:
                    self.fail(merge.where, "nhsim merge writes neither --json nor --csv")
                if ok:
                    self.ok(merge.where, f"reads every part file of {where}'s run from the same "
                            "claim (not those of another run, or of another number of shards), "
                            "writes its result there", start)


def check_trees(trees, files):
    """Every YAML file under each tree is a kustomization, one of its resources or transformer
    configurations, or a file given to the checker; and every resource and configuration of a
    kustomization exists. Returns the failures."""
    failures, covered = [], set(files)
    for tree in trees:
        for root, _, names in os.walk(tree):
            if "kustomization.yaml" in names:
                path = os.path.join(root, "kustomization.yaml")
                covered.add(os.path.realpath(path))
                with open(path, encoding="utf-8") as f:
                    kustomization = yaml.safe_load(f) or {}
                for field in ("resources", "configurations"):
                    for resource in kustomization.get(field) or []:
                        target = os.path.realpath(os.path.join(root, resource))
                        if not os.path.isfile(target):
                            failures.append(f"{path}: {field[:-1]} {resource} is not a file")
                        covered.add(target)
        for root, _, names in os.walk(tree):
            for name in sorted(names):
                path = os.path.join(root, name)
                if name.endswith((".yaml", ".yml")) and os.path.realpath(path) not in covered:
                    failures.append(f"{path}: checked by nothing (neither a kustomization's "
                                    "resource nor a file given to the checker)")
    return failures


def check_images(sets):
    """Every container of every set runs the same image with the same imagePullPolicy, so that
    the service and the batch run one build. Returns (failures, passed)."""
    images = [entry for manifests in sets for entry in manifests.images]
    found = sorted({(image, policy) for _, image, policy in images})
    if len(found) > 1:
        return [f"the manifests name {len(found)} images or pull policies, not one: "
                + "; ".join(f"{where}: {image} ({policy})" for where, image, policy in images)], []
    if found:
        return [], [f"every container ({len(images)}) runs {found[0][0]} ({found[0][1]})"]
    return [], []


def main(argv):
    if k8s_models is None:
        print("FAIL: python3-kubernetes is not installed (the schema of the Kubernetes API "
              "types): apt-get install python3-kubernetes", file=sys.stderr)
        return 1
    repo, sets, current, label, trees, files = ".", [], None, None, [], []
    k = 0
    while k < len(argv):
        if argv[k] in ("--repo", "--set", "--as", "--tree") and k + 1 == len(argv):
            print(__doc__, file=sys.stderr)
            return 2
        if argv[k] == "--repo":
            repo = argv[k + 1]
        elif argv[k] == "--tree":
            trees.append(argv[k + 1])
        elif argv[k] == "--set":
            current = Manifests(argv[k + 1], repo)
            sets.append(current)
        elif argv[k] == "--as":
            label = argv[k + 1]
        elif current is not None:
            current.load(argv[k], label)
            files.append(os.path.realpath(argv[k]))
            label = None
            k += 1
            continue
        else:
            print(__doc__, file=sys.stderr)
            return 2
        k += 2
    fields = [f"{t}.{f}" for t, fs in sorted(OVERLAY_FIELDS.items()) for f in fs
              if f not in getattr(k8s_models, t).attribute_map.values()]
    types = [t for t in sorted(OVERLAY_TYPES) if not hasattr(k8s_models, t)]
    print(f"  schema: the Kubernetes API types of python3-kubernetes {kubernetes.__version__}"
          f" ({os.path.dirname(kubernetes.__file__)}), plus {', '.join(fields + types)}"
          " (check_k8s_manifests.py)")
    errors = check_trees(trees, files)
    for line in errors:
        print(f"  FAIL  {line}")
    errors = len(errors)
    for manifests in sets:
        manifests.check()
        for line in manifests.checked:
            print(f"  ok    {line}")
        for line in manifests.errors:
            print(f"  FAIL  {line}")
        errors += len(manifests.errors)
    failures, passed = check_images(sets)
    for line in passed:
        print(f"  ok    {line}")
    for line in failures:
        print(f"  FAIL  {line}")
    errors += len(failures)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
