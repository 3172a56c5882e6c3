"""The standard OpenTelemetry variables that decide whether spans are exported at all."""

from __future__ import annotations

from dataclasses import dataclass

from . import environment


@dataclass(frozen=True)
class OtelEnvironment:
    """The standard OpenTelemetry variables that decide whether spans are exported at all
    (the SDK's exporters read their own ``OTEL_EXPORTER_OTLP_*`` variables themselves)."""

    traces_exporter: str  # OTEL_TRACES_EXPORTER: "" (off), otlp, console, none
    sdk_disabled: bool  # OTEL_SDK_DISABLED=true
    service_name: str  # OTEL_SERVICE_NAME, "" for the process's default

    @staticmethod
    def read() -> OtelEnvironment:
        var = environment.value
        return OtelEnvironment(
            traces_exporter=var("OTEL_TRACES_EXPORTER").lower(),
            sdk_disabled=var("OTEL_SDK_DISABLED").lower() == "true",
            service_name=var("OTEL_SERVICE_NAME"),
        )

    @property
    def tracing(self) -> bool:
        return not self.sdk_disabled and self.traces_exporter not in ("", "none")
