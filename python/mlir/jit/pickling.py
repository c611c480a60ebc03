"""How a JitModule pickles: as its source, options and callbacks (each
pickled here), rebuilt from the object cache where it is unpickled."""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import ir

if TYPE_CHECKING:
    from .module import JitModule


def _pickled_callback(name: str, fn: Callable[..., Any]) -> bytes:
    """`fn` pickled, or a PicklingError naming the callback. With cloudpickle
    installed, a function of `__main__` goes by value (the receiving process,
    such as a Dask worker, may have another `__main__`), and what pickle
    cannot take is tried with cloudpickle."""
    try:
        import cloudpickle  # type: ignore[import-not-found]
    except ImportError:
        cloudpickle = None
    picklers = [pickle.dumps]
    if cloudpickle is not None:
        by_value = getattr(fn, "__module__", None) == "__main__"
        picklers = [cloudpickle.dumps] if by_value else [pickle.dumps, cloudpickle.dumps]
    errors = []
    for dumps in picklers:
        try:
            return bytes(dumps(fn))
        except Exception as error:
            errors.append(error)
    raise pickle.PicklingError(
        f"cannot pickle the JitModule: its callback '{name}' ({fn!r}) cannot be "
        f"pickled ({errors[0]}); register a function defined at a module's top "
        "level, or install cloudpickle"
    )


def _rebuild(
    source: str,
    pipeline: str | None,
    opt_level: int,
    shared_libs: list[str],
    cache_dir: str | None,
    callbacks: dict[str, bytes],
) -> JitModule:
    """A pickled JitModule, in a Context of its own."""
    from .module import JitModule

    module = JitModule(
        source,
        pipeline=pipeline,
        opt_level=opt_level,
        shared_libs=shared_libs,
        context=ir.Context(),
        cache_dir=cache_dir,
    )
    for name, fn in callbacks.items():
        module.register(name, pickle.loads(fn))
    return module
