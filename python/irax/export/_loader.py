"""Loading artifacts with the IREE runtime alone (``irax.aot.load``).

Reads the signature from the module's reflection (``_format.py``), checks the format,
the target and every argument, and runs ``main`` through the same path as a jitted call
(``frontend.compile.execute``: device buffers, donation, result arrays):

    f = irax.aot.load("predict.vmfb")
    f(params, x)          # the exported pytree structure; shapes and dtypes checked
"""

from __future__ import annotations

import json
import os
import platform

import numpy as np

from irax.core import dtypes, shape_poly, tree_util
from irax.export import _format
from irax.frontend.compile import Specialization, execute, program_devices
from irax.frontend.eager import concrete_value
from irax.runtime import devices as _devices
from irax.runtime.executable import Executable

_API = "irax.aot.load"
#: target architectures that are platforms of their own (``irax.devices(arch)``)
_ACCELERATORS = ("cuda", "vulkan", "rocm")


def host_arch() -> str:
    """This machine's architecture, as targets name it (``x86_64``, ``aarch64``)."""
    machine = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)


def runs_here(arch: str) -> bool:
    """Whether code for ``arch`` (a target's, ``_format.py``) runs on this machine."""
    if arch == "any":
        return True
    if arch in _ACCELERATORS:
        try:
            return bool(_devices.devices(arch))
        except (RuntimeError, ValueError):
            return False
    return arch == host_arch()


def _platform_of(arch: str) -> str:
    return arch if arch in _ACCELERATORS else "cpu"


class Loaded:
    """A loaded artifact: call it like the exported function (non-static arguments)."""

    def __init__(self, vmfb: bytes, signature: dict, where: str, device=None):
        self.signature = signature
        self.fun_name = signature["function"]
        self.in_tree = _format.decode_tree(signature["in_tree"])
        self.out_tree = _format.decode_tree(signature["out_tree"])
        self.in_avals = tuple(_format.decode_avals(signature["in_avals"]))
        self.out_avals = tuple(_format.decode_avals(signature["out_avals"]))
        self.target = signature["target"]["name"]
        self._where = where
        arch = signature["target"]["arch"]
        platform_ = _platform_of(arch)
        home = device if device is not None else _devices.devices(platform_)[0]
        group = program_devices(home, int(signature["devices"]), self.fun_name)
        spec = Specialization(None, self.in_avals, self.out_avals, self.out_tree,
                              tuple(signature["donated"]))
        spec.name = self.fun_name
        spec.device = group[0] if group else home
        self.entry = signature.get("entry", "main")
        spec.executable = Executable(vmfb, spec.device, [a.dtype for a in self.out_avals],
                                     function=self.entry, devices=group)
        self._spec = spec

    def __call__(self, *args, **kwargs):
        pairs, tree = tree_util.tree_flatten_with_path((tuple(args), dict(kwargs)))
        if tree != self.in_tree:
            raise TypeError(f"{_API}({self.fun_name}): expected arguments of pytree structure "
                            f"{self.in_tree}, got {tree}")
        leaves = []
        sizes: dict = {}   # symbolic size name -> (size, where)
        for (path, x), want in zip(pairs, self.in_avals):
            try:
                _, got = concrete_value(x)
            except TypeError:
                raise TypeError(f"{_API}({self.fun_name}): argument "
                                f"{_path(path)} is not an array: {type(x).__name__}") from None
            if not _fits(got, want):
                raise TypeError(f"{_API}({self.fun_name}): argument {_path(path)} expected "
                                f"{want.str_short()}, got {got.str_short()}")
            if not want.is_static:
                try:
                    shape_poly.bind(sizes, want.shape, got.shape, f"argument {_path(path)}")
                except ValueError as e:
                    raise TypeError(f"{_API}({self.fun_name}): {e}") from None
            leaves.append(x if not isinstance(x, (bool, int, float, complex)) else
                          np.asarray(x, want.dtype))
        return execute(self._spec, leaves)

    def __repr__(self) -> str:
        ins = ", ".join(a.str_short() for a in self.in_avals)
        return f"Loaded({self.fun_name}({ins}) for {self.target}, from {self._where})"


def _fits(got, want) -> bool:
    """Same dtype, rank and sizes (a symbolic size fits any size)."""
    if dtypes.canonicalize_dtype(got.dtype) != want.dtype or got.ndim != want.ndim:
        return False
    return all(type(w) is not int or g == w for g, w in zip(got.shape, want.shape))


def _path(keys) -> str:
    """``args[0]['w']`` for a leaf of ``(args, kwargs)``; ``x`` for keyword ``x``."""
    keys = list(keys)
    head, rest = keys[0], keys[1:]
    if getattr(head, "idx", None) == 1 and rest:     # kwargs
        name = getattr(rest[0], "key", rest[0])
        return f"{name}" + tree_util.keystr(rest[1:])
    return "args" + tree_util.keystr(rest)


def signature_of(vmfb: bytes, where: str) -> dict:
    """The irax signature in a ``.vmfb``; the errors name ``where``."""
    rt = _devices.runtime()
    try:
        module = rt.VmModule.copy_buffer(_devices.instance(), vmfb)
    except (RuntimeError, ValueError) as e:
        raise ValueError(f"{_API}: {where} is not an IREE module: {e}") from None
    text = None
    for name in module.function_names:
        fn = module.lookup_function(name)
        text = None if fn is None else dict(fn.reflection).get(_format.KEY)
        if text is not None:
            break
    if text is None:
        raise ValueError(f"{_API}: {where} is an IREE module without irax's signature (not "
                         "written by irax.export); run it with iree.runtime or "
                         "iree-run-module")
    signature = json.loads(text)
    found = int(signature.get("format", 0))
    if found > _format.FORMAT:
        raise ValueError(f"{_API}: {where} has artifact format {found}, newer than this "
                         f"irax reads (format {_format.FORMAT}): load it with the irax "
                         f"{signature.get('irax', '?')} that wrote it, or newer")
    arch = signature["target"]["arch"]
    if not runs_here(arch):
        raise ValueError(f"{_API}: {where} was compiled for target "
                         f"{signature['target']['name']!r} ({arch}), which this machine "
                         f"({host_arch()}) cannot run")
    return signature


def load_bytes(vmfb: bytes, where: str, device=None) -> Loaded:
    return Loaded(vmfb, signature_of(vmfb, where), where, device)


def load(path, device=None) -> Loaded:
    """``irax.aot.load``: the exported function saved at ``path``, on ``device`` (default:
    the first device of the artifact's platform)."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        return load_bytes(f.read(), path, device)
