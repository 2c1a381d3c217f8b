"""Profiling sessions: a tree of frames (scopes, and the kernels launched in them) with metrics,
written as a ``.hatchet`` JSON file (the format of Triton's proton: a list of the root frame and
the devices' facts).

A frame's metrics are exclusive: ``count``, ``time (ns)``, and what the user or a kernel's
``launch_metadata`` gives (``flops8/16/32/64``, ``flops``, ``bytes``), summed over repeats; frames
of one name under one parent are one frame.  Times:

- a kernel launched through kernellab while a session with ``hook="triton"`` is active: on the
  GPU, CUDA events recorded on the launch's stream around the launch (resolved when the session
  is deactivated or finalized); on the host targets, whose launches are synchronous, the wall
  time of the launch;
- a scope in which no such kernel ran (work of another library, such as cuBLAS under
  ``torch.matmul``): the scope's own time, the same way (events on the current stream where
  kernellab has initialised CUDA, else wall time); a scope with kernels is their sum.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LAUNCH_METRICS = ("flops8", "flops16", "flops32", "flops64", "flops", "bytes")
TIME = "time (ns)"


@dataclass
class Frame:
    name: str
    metrics: dict[str, Any] = field(default_factory=dict)
    children: dict[str, Frame] = field(default_factory=dict)

    def child(self, name: str) -> Frame:
        found = self.children.get(name)
        if found is None:
            found = self.children[name] = Frame(name)
        return found

    def add(self, metrics: dict[str, Any]) -> None:
        for key, value in metrics.items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TypeError(f"profiler metric {key!r} must be a number, got {value!r}")
            self.metrics[key] = self.metrics.get(key, 0) + value

    def as_json(self) -> dict[str, Any]:
        return {"frame": {"name": self.name, "type": "function"}, "metrics": dict(self.metrics),
                "children": [child.as_json() for child in self.children.values()]}


class Timer:
    """The time of one launch or scope: CUDA events on ``stream`` (read later), or wall time."""

    def __init__(self, stream: int | None):
        self.events: tuple[int, int] | None = None
        if stream is not None:
            from ..backends.cuda import driver

            self.events = (driver.event_create(), driver.event_create())
            driver.event_record(self.events[0], stream)
            self.stream = stream
        self.start = time.perf_counter_ns()
        self.end: int | None = None

    def stop(self) -> None:
        if self.events is not None:
            from ..backends.cuda import driver

            driver.event_record(self.events[1], self.stream)
        self.end = time.perf_counter_ns()

    def discard(self) -> None:
        """Release the events of a time nobody records."""
        if self.events is not None:
            from ..backends.cuda import driver

            events, self.events = self.events, None
            for event in events:
                driver.event_destroy(event)

    def nanoseconds(self) -> float:
        """The time (read once: several sessions may hold this timer)."""
        if self.events is None:
            return float(self.end - self.start)
        from ..backends.cuda import driver

        events, self.events = self.events, None
        self.start, self.end = 0, int(driver.event_elapsed_ms(*events) * 1e6)
        for event in events:
            driver.event_destroy(event)
        return float(self.end)


def cuda_stream(stream: Any = None) -> int | None:
    """The CUDA stream to time on (``stream``, else the current one) where kernellab has
    initialised CUDA in this process; None on the host."""
    driver = sys.modules.get("kernellab.backends.cuda.driver")
    if driver is None or not driver._initialized:
        return None
    if stream is not None:
        return int(stream)
    device = driver.current_device()
    return None if device is None else driver.current_stream(device)


class Session:
    def __init__(self, number: int, name: str, hook: bool):
        self.number = number
        self.path = Path(name if name.endswith(".hatchet") else f"{name}.hatchet")
        self.hook = hook
        self.active = True
        self.root = Frame("ROOT")
        self.pending: list[tuple[Frame, Timer]] = []
        self.devices: dict[str, dict[str, Any]] = {}

    def frame(self, names: list[str]) -> Frame:
        frame = self.root
        for name in names:
            frame = frame.child(name)
        return frame

    def settle(self) -> None:
        """Read the times of what was timed (waits for the GPU work timed with events)."""
        for frame, timer in self.pending:
            frame.add({TIME: timer.nanoseconds()})
        self.pending.clear()

    def write(self) -> Path:
        self.settle()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps([self.root.as_json(), self.devices]))
        os.replace(temporary, self.path)
        return self.path

    def note_cuda_device(self) -> None:
        driver = sys.modules.get("kernellab.backends.cuda.driver")
        device = driver.current_device() if driver is not None else None
        if device is None or str(device) in self.devices.get("CUDA", {}):
            return
        props = driver.properties(device)
        sm_khz, memory_khz = driver.clocks_khz(device)
        self.devices.setdefault("CUDA", {})[str(device)] = {
            "arch": props.arch.removeprefix("sm_").rstrip("a"), "num_sms": props.sm_count, "clock_rate": sm_khz,
            "memory_clock_rate": memory_khz, "bus_width": props.memory_bus_width}


class Profiler:
    """The sessions of this process and the scopes open on each thread."""

    def __init__(self) -> None:
        self.sessions: dict[int, Session] = {}
        self.lock = threading.RLock()
        self.local = threading.local()

    @property
    def stack(self) -> list[tuple[str, Timer | None, int]]:
        stack = getattr(self.local, "stack", None)
        if stack is None:
            stack = self.local.stack = []
        return stack

    def recording(self, hooked: bool = False) -> list[Session]:
        return [s for s in self.sessions.values() if s.active and (s.hook or not hooked)]

    def names(self) -> list[str]:
        return [name for name, _, _ in self.stack]

    # ---- scopes ----
    def enter_scope(self, name: str, metrics: dict[str, Any] | None) -> None:
        with self.lock:
            sessions = self.recording()
            self.stack.append((name, Timer(cuda_stream()) if sessions else None, self.kernels_recorded()))
            for session in sessions:
                session.frame(self.names()).add(metrics or {})

    def exit_scope(self, name: str | None, metrics: dict[str, Any] | None) -> str:
        with self.lock:
            if not self.stack:
                raise ValueError("exit_scope without an open scope")
            names = self.names()
            popped, timer, kernels_before = self.stack.pop()
            if name and name != popped:
                raise ValueError(f"Scope name mismatch: {name} != {popped}")
            sessions = self.recording()
            # no kernel of ours ran inside (work of another library): the scope's own time
            timed = timer is not None and bool(sessions) and self.kernels_recorded() == kernels_before
            if timed:
                timer.stop()
            elif timer is not None:
                timer.discard()
            for session in sessions:
                frame = session.frame(names)
                frame.add({**(metrics or {}), **({"count": 1} if timed else {})})  # counted as a kernel is
                if timed:
                    session.pending.append((frame, timer))
            return popped

    def kernels_recorded(self) -> int:
        return getattr(self.local, "kernels", 0)

    # ---- kernel launches (Triton's launch hooks) ----
    def launch_enter(self, metadata: Any) -> None:
        data = metadata.get()
        with self.lock:
            sessions = self.recording(hooked=True)
            if not sessions:
                self.local.launch = None
                return
            stream = cuda_stream(data.get("stream")) if data.get("function") is not None else None
            metrics = {"count": 1, **{k: data[k] for k in LAUNCH_METRICS if data.get(k) is not None}}
            device = sys.modules["kernellab.backends.cuda.driver"].current_device() if stream is not None else None
            frames = []
            for session in sessions:
                frame = session.frame([*self.names(), str(data["name"])])
                frame.add(metrics)
                if device is not None:
                    frame.metrics.update({"device_id": str(device), "device_type": "CUDA"})
                    session.note_cuda_device()
                frames.append((session, frame))
            self.local.launch = (frames, Timer(stream))
            self.local.kernels = self.kernels_recorded() + 1

    def launch_exit(self, metadata: Any) -> None:
        launch = getattr(self.local, "launch", None)
        if launch is None:
            return
        frames, timer = launch
        timer.stop()
        with self.lock:
            for session, frame in frames:
                session.pending.append((frame, timer))
        self.local.launch = None


PROFILER = Profiler()

__all__ = ["Frame", "Session", "Profiler", "PROFILER", "LAUNCH_METRICS", "TIME"]
