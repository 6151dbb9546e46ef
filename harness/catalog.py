"""The catalog of model, benchmark and metric family types that plugins registered."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from vlc_harness.errors import PluginError, UserError

T = TypeVar("T")


@dataclass(frozen=True)
class Registered(Generic[T]):
    """A registered type and the plugin that registered it."""

    cls: type[T]
    plugin: str


class Registrar(Generic[T]):
    """The typed object ``register_*`` hooks receive: ``register(SomeClass)``.

    Each class must carry a name in its ``key`` attribute (``type_name``; a metric family's
    ``name``); registering the same name twice raises :class:`~vlc_harness.errors.PluginError`
    naming both plugins.
    """

    def __init__(self, kind: str, base: type[T], key: str = "type_name") -> None:
        self.kind = kind
        self.base = base
        self.key = key
        self.entries: dict[str, Registered[T]] = {}
        self.missing: dict[str, str] = {}
        """Types a plugin knows but cannot offer here, with the reason (e.g. a package that does
        not import)."""
        self.missing_classes: dict[str, type[T]] = {}
        """The classes of those types, where the plugin gave them: their params still describe a
        registry entry (the registry's JSON Schema lists them whatever is installed)."""
        self.current_plugin = "<unknown>"

    def __call__(self, cls: type[T]) -> None:
        if not (isinstance(cls, type) and issubclass(cls, self.base)):
            raise PluginError(
                f"plugin {self.current_plugin} registered {cls!r} as a {self.kind}, "
                f"but it is not a subclass of {self.base.__module__}.{self.base.__qualname__}"
            )
        name = getattr(cls, self.key, None)
        if not isinstance(name, str) or not name:
            raise PluginError(f"{self.kind} class {cls.__module__}.{cls.__qualname__} has no {self.key}")
        if name in self.entries:
            first = self.entries[name]
            raise PluginError(
                f"{self.kind} type {name!r} is registered twice: by plugin {first.plugin} "
                f"({first.cls.__module__}.{first.cls.__qualname__}) and by plugin {self.current_plugin} "
                f"({cls.__module__}.{cls.__qualname__})"
            )
        check = getattr(cls, "check_declaration", None)
        if check is not None:
            try:
                check()
            except (ValueError, TypeError) as exc:
                raise PluginError(
                    f"{self.kind} plugin {self.current_plugin} ({cls.__module__}.{cls.__qualname__}) declares an "
                    f"impossible metric: {exc}"
                ) from exc
        self.entries[name] = Registered(cls, self.current_plugin)

    def unavailable(self, name: str, reason: str, cls: type[T] | None = None) -> None:
        """Declare a type this plugin would offer but cannot here; selecting it shows ``reason``. Give its
        class (defined without importing what is missing) so that the registry's schema still holds it."""
        self.missing[name] = f"{reason} (plugin {self.current_plugin})"
        if cls is not None:
            self.missing_classes[name] = cls

    def get(self, name: str) -> Registered[T]:
        """The registration of ``name``; an unknown name raises a user error listing the known ones."""
        try:
            return self.entries[name]
        except KeyError:
            if name in self.missing:
                raise UserError(f"{self.kind} type {name!r} is not available here: {self.missing[name]}") from None
            known = ", ".join(sorted(self.entries)) or "(none)"
            raise UserError(f"unknown {self.kind} type {name!r}; known types: {known}") from None

    def names(self) -> list[str]:
        """Registered type names, sorted."""
        return sorted(self.entries)
