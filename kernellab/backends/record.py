"""Read-only records for the launch paths (device properties, pointer facts, kernel
parameters, native launch shapes).

``@dataclass(frozen=True)`` generates and compiles each class's methods when the class is
defined: 0.5-1.5 ms per class on the development machine, paid by the first launch of every
new process that loads a cached CUDA kernel (issue 4's budget for all of it is 5 ms), or by the
second launch that makes a native launch path.  A
:class:`Record` subclass gives what the backend used from those dataclasses -- positional or
keyword construction with defaults, read-only fields, ``==``, ``hash`` and ``repr`` -- for the
cost of defining a plain class."""

from __future__ import annotations

from typing import Any

_set = object.__setattr__  # what sets a field (the class's own __setattr__ refuses)


class Record:
    """Fields are the subclass's ``__slots__`` (in order); ``_defaults`` gives the values of
    fields that may be left out."""

    __slots__ = ()
    _defaults: dict[str, Any] = {}

    def __init__(self, *args: Any, **kwargs: Any):
        fields = self.__slots__
        if not kwargs and len(args) == len(fields):  # every field in order (the launch path's records):
            for name, value in zip(fields, args):  # nothing to check
                _set(self, name, value)
            return
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__name__} takes {len(fields)} fields ({', '.join(fields)}), "
                            f"got {len(args)} positional arguments")
        values = dict(zip(fields, args))
        for name, value in kwargs.items():
            if name not in fields or name in values:
                raise TypeError(f"{type(self).__name__} got {'an unknown' if name not in fields else 'a repeated'} "
                                f"field {name!r}; its fields are {', '.join(fields)}")
            values[name] = value
        for name in fields:
            if name not in values and name not in self._defaults:
                raise TypeError(f"{type(self).__name__} is missing field {name!r}")
            _set(self, name, values[name] if name in values else self._defaults[name])

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only: cannot delete {name!r}")

    def field_values(self) -> tuple:
        """The fields' values, in order."""
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.field_values() == other.field_values()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.field_values()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"


__all__ = ["Record"]
