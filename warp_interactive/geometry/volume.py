"""``wp.Volume``: a sparse NanoVDB grid that kernels sample by id (``volume.id``)."""

import collections
import struct

import numpy as np

from ..runtime.device import get_device
from . import nanovdb as nv
from . import volume_rebuild as vr

# NanoVDB's names of the grid types (GridInfo.type_str)
_TYPE_STR = {nv.FLOAT: "float", nv.INT32: "int32", nv.VEC3F: "Vec3f", nv.VEC4F: "Vec4f",
             nv.VEC4D: "Vec4d", nv.INDEX: "Index", nv.ON_INDEX: "OnIndex"}


class Volume:
    """One NanoVDB grid held in host memory; ``id`` is the address kernels read it at.

    Build one with ``load_from_nvdb`` (a .nvdb file, its bytes, or a grid buffer),
    ``load_from_numpy`` (a dense array), ``allocate`` (a box of voxels), ``allocate_by_tiles``
    or ``allocate_by_voxels`` (from points); write it with ``save_to_nvdb``.
    """

    CLOSEST = 0
    LINEAR = 1

    REBUILD_SUCCESS = vr.SUCCESS
    REBUILD_LEAF_CAPACITY_EXCEEDED = vr.LEAF_CAPACITY_EXCEEDED
    REBUILD_LOWER_CAPACITY_EXCEEDED = vr.LOWER_CAPACITY_EXCEEDED
    REBUILD_UPPER_CAPACITY_EXCEEDED = vr.UPPER_CAPACITY_EXCEEDED
    REBUILD_VOXEL_CAPACITY_EXCEEDED = vr.VOXEL_CAPACITY_EXCEEDED
    REBUILD_INVALID_INPUT = vr.INVALID_INPUT
    RebuildInfo = vr.RebuildInfo
    _rebuild_info = vr.NOT_REBUILDABLE

    def __init__(self, data, device=None, _offset=0, _reserved=False):
        self.device = get_device(device)
        if _reserved:      # storage reserved for rebuilds: _install writes grids into it
            self._reserve = data
            data = nv.build_grid(nv.ON_INDEX, np.zeros((0, 3), np.int64), None, np.zeros((0, 512), bool),
                                 np.uint64(0), np.ones(3), np.zeros(3))
            self._reserve[:len(data)] = data
            data = self._reserve
        whole = data if isinstance(data, np.ndarray) and data.ctypes.data % 32 == 0 else nv.read(data)
        self._info = nv.grid_info(whole[_offset:])
        # a file's grids lie back to back in `whole`: this volume is the one at _offset
        self._whole, self._offset = whole, _offset
        buf = whole[_offset:_offset + self._info["size"]]
        self._buf = buf
        self._dev = None
        if not self.device.reads_host_memory:   # the grid is position independent: a byte copy is a grid
            from ..types import scalars as sc
            from ..types.array import array
            self._dev = array(self._reserve if _reserved else buf, dtype=sc.uint8, device=self.device)
            self.id = int(self._dev.ptr)
        else:
            self.id = buf.ctypes.data

    # --- creation --------------------------------------------------------------------------------
    @classmethod
    def load_from_nvdb(cls, file_or_buffer, device=None):
        """A Volume from an open .nvdb file, a path, bytes, a NumPy uint8 array or a wp.array."""
        if hasattr(file_or_buffer, "read"):
            data = file_or_buffer.read()
        elif isinstance(file_or_buffer, str) or hasattr(file_or_buffer, "__fspath__"):
            with open(file_or_buffer, "rb") as f:
                data = f.read()
        elif hasattr(file_or_buffer, "numpy"):
            device = file_or_buffer.device if device is None else device
            data = np.ascontiguousarray(file_or_buffer.numpy()).view(np.uint8).reshape(-1).tobytes()
        else:
            data = bytes(memoryview(file_or_buffer).cast("B"))
        return cls(nv.read(data), device)

    @classmethod
    def load_from_numpy(cls, ndarray, min_world=(0.0, 0.0, 0.0), voxel_size=1.0, bg_value=0.0,
                        device=None):
        """A Volume holding a dense (X, Y, Z) float/int32 or (X, Y, Z, 3) vec3 array; voxel
        (0, 0, 0) sits at ``min_world``. 8^3 blocks that hold only ``bg_value`` are left out."""
        voxel_size = _voxel_size(voxel_size, "Volume.load_from_numpy")
        a = np.asarray(ndarray)
        vec = a.ndim == 4 and a.shape[3] == 3
        if a.ndim != 3 and not vec:
            raise ValueError(f"Volume.load_from_numpy: expected an (X, Y, Z) or (X, Y, Z, 3) "
                             f"array, got shape {a.shape}")
        gtype = nv.VEC3F if vec else (nv.INT32 if np.issubdtype(a.dtype, np.integer) else nv.FLOAT)
        dt = np.int32 if gtype == nv.INT32 else np.float32
        bg = np.broadcast_to(np.asarray(bg_value, dt), (3,) if vec else ()).copy()
        shape = np.array(a.shape[:3])
        padded_shape = tuple((shape + 7) // 8 * 8) + ((3,) if vec else ())
        full = np.empty(padded_shape, dt)
        full[...] = bg
        inside = np.zeros(padded_shape[:3], bool)
        full[:shape[0], :shape[1], :shape[2]] = a
        inside[:shape[0], :shape[1], :shape[2]] = True
        bx, by, bz = (s // 8 for s in padded_shape[:3])
        blocks = full.reshape(bx, 8, by, 8, bz, 8, *((3,) if vec else ()))
        blocks = np.moveaxis(blocks, (1, 3, 5), (3, 4, 5)).reshape(bx * by * bz, 512, *((3,) if vec else ()))
        act = np.moveaxis(inside.reshape(bx, 8, by, 8, bz, 8), (1, 3, 5), (3, 4, 5)).reshape(-1, 512)
        differs = (blocks != bg).reshape(len(blocks), 512, -1).any(axis=2) & act
        keep = differs.any(axis=1)
        ii, jj, kk = np.meshgrid(np.arange(bx), np.arange(by), np.arange(bz), indexing="ij")
        origins = np.stack([ii, jj, kk], -1).reshape(-1, 3)[keep] * 8
        buf = nv.build_grid(gtype, origins, blocks[keep], act[keep], bg, voxel_size, min_world)
        return cls(buf, device)

    @classmethod
    def allocate(cls, min, max, voxel_size, bg_value=0.0, translation=(0.0, 0.0, 0.0),
                 points_in_world_space=False, device=None):
        """A volume whose voxels in the box [min, max] (index space, or world space with
        ``points_in_world_space``) are active and hold ``bg_value``; its type follows bg_value
        (float, int or a 3-vector)."""
        voxel_size = _voxel_size(voxel_size, "Volume.allocate")
        lo, hi = np.asarray(min, np.float64), np.asarray(max, np.float64)
        tr = np.asarray(translation, np.float64)
        if points_in_world_space:
            lo, hi = (lo - tr) / voxel_size, (hi - tr) / voxel_size
        lo, hi = np.floor(lo).astype(np.int64), np.ceil(hi).astype(np.int64)
        grid = np.stack(np.meshgrid(*[np.arange(a // 8, b // 8 + 1) for a, b in zip(lo, hi)],
                                    indexing="ij"), -1).reshape(-1, 3) * 8
        vox = grid[:, None, :] + nv._VOX[None]
        active = np.all((vox >= lo) & (vox <= hi), axis=2)
        return cls._from_leaves(grid, active, bg_value, voxel_size, tr, device)

    @classmethod
    def allocate_by_tiles(cls, tile_points, voxel_size, bg_value=0.0, translation=(0.0, 0.0, 0.0),
                          device=None, rebuildable=False, max_tiles=None, max_lower_nodes=None,
                          max_upper_nodes=None, status=None, point_mask=None):
        """Activate every voxel of the 8^3 tiles containing ``tile_points`` (int32 index-space
        coordinates, or float world-space positions), holding ``bg_value``; with
        ``bg_value=None`` an index volume (NanoVDB ValueIndex: every voxel of the tiles has an
        index, see ``get_voxels``) for ``wp.volume_sample_index`` on external data.

        With ``rebuildable=True`` or any ``max_*`` capacity (defaults: the point count, then each
        level's capacity bounds the next) the volume reserves that much storage and ``rebuild``
        replaces its tiles in place; ``status`` (a uint32 array) receives ``REBUILD_*`` flags.
        Points whose ``point_mask`` entry is 0 are ignored."""
        voxel_size = _voxel_size(voxel_size, "Volume.allocate_by_tiles")
        rebuildable = rebuildable or any(c is not None for c in (max_tiles, max_lower_nodes, max_upper_nodes))
        p = vr.masked_points(tile_points, point_mask)
        grid_type = nv.INDEX if bg_value is None else _grid_type_of(bg_value)
        if not rebuildable:
            return cls._from_topology(grid_type, *_tile_leaves(p, voxel_size, translation), bg_value,
                                      voxel_size, translation, device)
        tiles = vr.capacity(max_tiles, len(_points(tile_points)), "max_tiles")
        lower = vr.capacity(max_lower_nodes, tiles, "max_lower_nodes")
        info = vr.RebuildInfo("tiles", tiles * 512, tiles, lower, vr.capacity(max_upper_nodes, lower, "max_upper_nodes"))
        return cls._rebuildable(info, grid_type, bg_value, voxel_size, translation, device, p, status)

    @classmethod
    def allocate_by_voxels(cls, voxel_points, voxel_size, translation=(0.0, 0.0, 0.0), device=None,
                           rebuildable=False, max_active_voxels=None, max_leaf_nodes=None, max_lower_nodes=None,
                           max_upper_nodes=None, status=None, point_mask=None):
        """An index volume (NanoVDB ValueOnIndex) whose active voxels are exactly those
        containing ``voxel_points`` (int32 index coordinates, or float world-space positions):
        each has an index in [0, get_voxel_count()) into external data, read in kernels with
        ``wp.volume_lookup_index`` / ``wp.volume_sample_index``.

        With ``rebuildable=True`` or any ``max_*`` capacity (defaults: the point count, then each
        level's capacity bounds the next) the volume reserves that much storage and ``rebuild``
        replaces its voxels in place; ``status`` (a uint32 array) receives ``REBUILD_*`` flags.
        Points whose ``point_mask`` entry is 0 are ignored."""
        voxel_size = _voxel_size(voxel_size, "Volume.allocate_by_voxels")
        rebuildable = rebuildable or any(c is not None for c in (max_active_voxels, max_leaf_nodes,
                                                                 max_lower_nodes, max_upper_nodes))
        p = vr.masked_points(voxel_points, point_mask)
        if not rebuildable:
            return cls._from_topology(nv.ON_INDEX, *_voxel_leaves(p, voxel_size, translation), None,
                                      voxel_size, translation, device)
        voxels = vr.capacity(max_active_voxels, len(_points(voxel_points)), "max_active_voxels")
        leaves = vr.capacity(max_leaf_nodes, voxels, "max_leaf_nodes")
        lower = vr.capacity(max_lower_nodes, leaves, "max_lower_nodes")
        info = vr.RebuildInfo("voxels", voxels, leaves, lower, vr.capacity(max_upper_nodes, lower, "max_upper_nodes"))
        return cls._rebuildable(info, nv.ON_INDEX, None, voxel_size, translation, device, p, status)

    @classmethod
    def _from_topology(cls, grid_type, origins, active, bg_value, voxel_size, translation, device):
        if grid_type in nv.INDEX_TYPES:
            return cls._index_volume(grid_type, origins, active, voxel_size, translation, device)
        return cls._from_leaves(origins, active, bg_value, voxel_size, translation, device, grid_type)

    @classmethod
    def _rebuildable(cls, info, grid_type, bg_value, voxel_size, translation, device, points, status):
        """A volume whose buffer holds ``info``'s capacity, built from ``points``."""
        status = vr.check_status(status, get_device(device))
        size = vr.grid_bytes(grid_type, info.max_leaf_node_count, info.max_lower_node_count,
                             info.max_upper_node_count)
        vol = cls(nv.aligned_bytes(size), device, _reserved=True)
        vol._rebuild_info = info
        # a copy of the background: the caller's list or array may change before a rebuild
        bg = None if bg_value is None else np.array(bg_value)
        vol._rebuild_args = (grid_type, bg, voxel_size, translation)
        vol._rebuild_from(points, status)
        return vol

    def rebuild(self, points, status=None, point_mask=None):
        """Replace this volume's active voxels (``allocate_by_voxels`` volumes) or tiles
        (``allocate_by_tiles`` volumes) by those of ``points``, in place: ``id`` stays the same.
        A topology beyond the reserved capacity leaves the volume empty and sets the matching
        ``REBUILD_*`` flags in ``status``. Returns ``status``."""
        if self._rebuild_info.kind is None:
            raise RuntimeError("Volume is not rebuildable")
        status = vr.check_status(status, self.device)
        self._rebuild_from(vr.masked_points(points, point_mask), status)
        return status

    def _rebuild_from(self, points, status):
        grid_type, bg_value, voxel_size, translation = self._rebuild_args
        leaves = _voxel_leaves if self._rebuild_info.kind == "voxels" else _tile_leaves
        origins, active = leaves(points, voxel_size, translation)
        flags = vr.overflow_flags(self._rebuild_info, int(active.sum()), len(origins), *vr.node_counts(origins))
        if flags:
            origins, active = origins[:0], active[:0]
        fresh = type(self)._from_topology(grid_type, origins, active, bg_value, voxel_size, translation, "cpu")
        self._install(fresh._buf)
        vr.report(status, flags, "Volume.rebuild")

    def _install(self, grid):
        """Copy the grid buffer ``grid`` into the reserved storage (same address)."""
        n = len(grid)
        self._reserve[:n] = grid
        self._info = nv.grid_info(self._reserve[:n])
        self._buf = self._whole = self._reserve[:n]
        if self._dev is not None:
            from ..types.array import array, copy
            copy(self._dev, array(self._buf, dtype=self._dev.dtype, device="cpu"), count=n)

    def get_rebuild_info(self):
        """RebuildInfo(kind, max_voxel_count, max_leaf_node_count, max_lower_node_count,
        max_upper_node_count): "voxels" or "tiles" and the reserved capacities of a rebuildable
        volume; (None, 0, 0, 0, 0) for others."""
        return self._rebuild_info

    @property
    def is_rebuildable(self):
        return self._rebuild_info.kind is not None

    @classmethod
    def _index_volume(cls, grid_type, origins, active, voxel_size, translation, device):
        buf = nv.build_grid(grid_type, origins, None, active, np.uint64(0), voxel_size, translation)
        return cls(buf, device)

    @classmethod
    def _from_leaves(cls, origins, active, bg_value, voxel_size, translation, device, gtype=None):
        gtype = _grid_type_of(bg_value) if gtype is None else gtype
        scalar, n = nv.GRID_TYPES[gtype]
        dt = np.dtype(scalar)
        bg = np.asarray(bg_value)
        values = np.empty((len(origins), 512) + ((n,) if n > 1 else ()), dt)
        values[...] = bg.astype(dt)
        buf = nv.build_grid(gtype, origins, values, active, bg.astype(dt), voxel_size, translation)
        return cls(buf, device)

    # --- saving and inspection ----------------------------------------------------------------------
    def save_to_nvdb(self, path_or_file, codec="none"):
        """Write a standard .nvdb file (codec "none" or "zip") holding this volume's grid and the
        grids loaded with it (the whole file it came from); only the first grid of a set saves."""
        codes = {"none": nv.CODEC_NONE, "zip": nv.CODEC_ZIP}
        if codec not in codes:
            raise ValueError(f"Volume.save_to_nvdb: codec must be 'none' or 'zip', got {codec!r}")
        if self._offset:
            raise RuntimeError("Volume.save_to_nvdb: this is grid "
                               f"{self.get_grid_info().grid_index} of its file; save the first "
                               "grid, which writes them all")
        grids = nv.split_grids(self._whole)
        grids[0] = self.buffer()   # on a GPU: with the values kernels stored
        nv.write_file(path_or_file, grids, codec=codes[codec])

    def __del__(self):
        # the device copy goes with the volume (safe on an instance __init__ never reached)
        self.__dict__.pop("_dev", None)

    # --- feature arrays: the grid's blind data (e.g. fVDB's per-voxel features) ---------------------
    FeatureArrayInfo = collections.namedtuple("FeatureArrayInfo", "name ptr value_size value_count type_str")

    def _blind(self, i):
        """(byte offset in the grid, value count, value size, data type, name) of blind data i."""
        off, count = struct.unpack_from("<qI", self._buf, 640)
        if not 0 <= i < count:
            raise IndexError(f"Volume: feature array {i} out of range (the grid has {count})")
        at = off + 288 * i
        rel, n, size, _, _, dtype = struct.unpack_from("<qQIIII", self._buf, at)
        name = bytes(self._buf[at + 32:at + 288]).split(b"\0")[0].decode(errors="replace")
        return at + rel, n, size, dtype, name

    def get_feature_array_count(self):
        """How many supplemental data arrays (NanoVDB blind data) the grid holds."""
        return int(struct.unpack_from("<I", self._buf, 648)[0])

    def get_feature_array_info(self, feature_index):
        """FeatureArrayInfo(name, ptr, value_size, value_count, type_str) of one array."""
        start, n, size, dtype, name = self._blind(feature_index)
        base = int(self._dev.ptr) if self._dev is not None else self._buf.ctypes.data
        return Volume.FeatureArrayInfo(name, base + start, size, n, _TYPE_STR.get(dtype, "?"))

    def feature_array(self, feature_index, dtype=None):
        """Feature array ``feature_index`` as a 1-d wp.array of ``dtype`` (default: its stored
        type, or uint8 bytes when that is unknown). On the CPU a view of the grid's memory; on
        a GPU a device copy."""
        from ..types import scalars as sc
        from ..types.array import array
        from ..types.composite import vector
        start, n, size, stored, _ = self._blind(feature_index)
        if dtype is None:
            scalar, k = nv.GRID_TYPES.get(stored, ("uint8", size))
            dtype = getattr(sc, scalar) if k == 1 else vector(k, getattr(sc, scalar))
        return _typed_array(self.buffer()[start:start + n * size], dtype, self.device)

    def load_next_grid(self):
        """The next grid of the file this volume was loaded from (a new Volume on the same
        device), or None after the last one."""
        info = self.get_grid_info()
        if info.grid_index + 1 >= info.grid_count:
            return None
        return Volume(self._whole, self.device, _offset=self._offset + self._info["size"])

    def array(self):
        """The grid buffer (a wp.array of uint8 sharing the memory kernels read)."""
        if self._dev is not None:
            return self._dev
        from ..types import scalars as sc
        from ..types.array import array
        return array(self._buf, dtype=sc.uint8, copy=False, device=self.device)

    def buffer(self):
        """The grid's bytes on the host (NumPy uint8); on a CUDA device a fresh copy, so values
        stored by kernels (``volume_store*``) are included."""
        if self._dev is not None:
            self._buf = np.ascontiguousarray(self._dev.numpy())
        return self._buf

    def get_voxel_size(self):
        return tuple(self._info["voxel_size"])

    @property
    def dtype(self):
        """The value type: wp.float32, wp.int32, wp.vec3f, wp.vec4f or wp.vec4d; None for index
        volumes (they hold no values)."""
        from ..types import composite as comp
        from ..types import scalars as sc
        t = self._info["grid_type"]
        if t in nv.INDEX_TYPES:
            return None
        scalar, n = nv.GRID_TYPES[t]
        s = getattr(sc, scalar)
        return s if n == 1 else comp.vector(n, s)

    GridInfo = collections.namedtuple(
        "GridInfo", "name size_in_bytes grid_index grid_count type_str translation transform_matrix")

    def get_grid_info(self):
        """A GridInfo: name, size_in_bytes, grid_index, grid_count (the grids of its file),
        type_str (NanoVDB's name of the value type), translation (vec3) and transform_matrix
        (the index-to-world mat33)."""
        from ..types import composite as comp
        from ..types import scalars as sc
        index, count = struct.unpack_from("<II", self._buf, 24)
        m = struct.unpack_from("<9f", self._buf, 296)
        return Volume.GridInfo(self._info["name"], self._info["size"], index, count,
                               _TYPE_STR.get(self._info["grid_type"], "?"),
                               comp.vector(3, sc.float32)(*self._info["translation"]),
                               comp.matrix((3, 3), sc.float32)(*m))

    @property
    def is_index(self):
        """True for index volumes (NanoVDB ValueIndex / ValueOnIndex grids)."""
        return self._info["grid_type"] in nv.INDEX_TYPES

    def get_tile_count(self):
        """The number of leaves (8^3 tiles)."""
        return int(struct.unpack_from("<I", self._buf, nv.GRID + 32)[0])

    def get_voxel_count(self):
        """How many voxels have an index: the active ones of a ValueOnIndex volume, every voxel
        of every tile otherwise (the length external data for volume_sample_index needs); for a
        rebuildable volume its reserved capacity (any rebuild fits external data that long;
        ``get_active_stats()`` has the current count)."""
        if self._rebuild_info.kind is not None:
            return self._rebuild_info.max_voxel_count
        if self._info["grid_type"] == nv.ON_INDEX:
            return int(struct.unpack_from("<Q", self._buf, nv.GRID + 56)[0])
        return 512 * self.get_tile_count()

    ActiveStats = collections.namedtuple("ActiveStats", "voxel_count leaf_node_count lower_node_count upper_node_count")

    def get_active_stats(self):
        """ActiveStats(voxel_count, leaf_node_count, lower_node_count, upper_node_count): the
        active voxels and the nodes of each tree level (NanoVDB's tree counters)."""
        leaf, lower, upper = struct.unpack_from("<III", self._buf, nv.GRID + 32)
        voxels = int(struct.unpack_from("<Q", self._buf, nv.GRID + 56)[0])
        return Volume.ActiveStats(voxels, int(leaf), int(lower), int(upper))

    def get_tiles(self, out=None):
        """The tiles' origins in index space: an (N, 3) int32 wp.array on the volume's device,
        in storage order (written into the first N rows of ``out`` when given)."""
        origins, _, _ = nv.leaves(self.buffer())
        return self._int_rows(origins, out)

    def _int_rows(self, rows, out=None):
        from ..types import scalars as sc
        from ..types.array import array
        rows = np.ascontiguousarray(rows, np.int32).reshape(-1, 3)
        if out is None:
            return array(rows, dtype=sc.int32, device=self.device)
        host = np.array(out.numpy())
        flat = host.reshape(-1, 3)
        if len(flat) < len(rows):
            raise RuntimeError(f"Volume: out has {len(flat)} rows, the volume {len(rows)}")
        flat[:len(rows)] = rows
        out.assign(array(flat.reshape(host.shape), dtype=out.dtype, device=out.device))
        return out

    def get_voxels(self, out=None):
        """The index-space coordinates of every indexed voxel, row m holding the voxel whose
        index (wp.volume_lookup_index) is m: an (N, 3) int32 wp.array (written into the first
        N rows of ``out`` when given; N = get_voxel_count(), or the active count of a
        rebuildable volume)."""
        origins, active, first = nv.leaves(self.buffer())
        coords = origins[:, None, :] + nv._VOX[None]                   # (N, 512, 3)
        if self._info["grid_type"] == nv.ON_INDEX:
            rank = np.cumsum(active, axis=1) - 1
            index = (first[:, None].astype(np.int64) - 1 + rank)[active]
            rows = np.empty((len(index), 3), np.int64)
            rows[index] = coords[active]
        elif self._info["grid_type"] == nv.INDEX:
            index = (first[:, None].astype(np.int64) - 1 + np.arange(512)[None]).reshape(-1)
            rows = np.empty((len(index), 3), np.int64)
            rows[index] = coords.reshape(-1, 3)
        else:
            rows = coords.reshape(-1, 3)
        return self._int_rows(rows, out)


def _voxel_size(value, owner):
    """A voxel size as three float64s: one number for all axes or one per axis, each finite
    and > 0 (TypeError for non-numbers, ValueError for bad counts or values)."""
    if value is None or isinstance(value, (str, bytes)):
        raise TypeError(f"{owner}: voxel_size must be a number or 3 numbers, got {value!r}")
    try:
        v = np.asarray(value, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise TypeError(f"{owner}: voxel_size must be a number or 3 numbers, got {value!r}") from None
    if v.size == 1:
        v = np.repeat(v, 3)
    if v.size != 3:
        raise ValueError(f"{owner}: voxel_size must be one number or 3 (one per axis), got {v.size}")
    if not np.all(np.isfinite(v) & (v > 0)):
        raise ValueError(f"{owner}: voxel_size must be finite and > 0, got {tuple(v)}")
    return v


def _typed_array(raw, dtype, device):
    """The bytes ``raw`` as a 1-d wp.array of ``dtype`` (trailing partial element dropped): a
    view on the CPU, a copy on other devices."""
    from ..types.array import array
    from ..types.dtypes import np_dtype_of, type_size
    n = len(raw) // type_size(dtype)
    host = raw[:n * type_size(dtype)].view(np_dtype_of(dtype))
    host = host.reshape(n, -1) if host.size != n else host
    return array(host, dtype=dtype, copy=not get_device(device).is_cpu, device=device)


def _grid_type_of(bg_value):
    """The grid type a background value asks for: its wp vector type (vec3, vec4, vec4d), an
    integer (int32), a float (float32); plain sequences of 3 or 4 are float32 vectors."""
    scalar = getattr(type(bg_value), "_wp_scalar_type_", None)
    bg = np.asarray(bg_value)
    if bg.size == 4:
        return nv.VEC4D if getattr(scalar, "__name__", "") == "float64" else nv.VEC4F
    if bg.size == 3:
        return nv.VEC3F
    if bg.size != 1:
        raise ValueError(f"wp.Volume: bg_value must be a scalar or a 3- or 4-vector, got {bg_value!r}")
    return nv.INT32 if np.issubdtype(bg.dtype, np.integer) else nv.FLOAT


def _points(points):
    p = points.numpy() if hasattr(points, "numpy") else np.asarray(points)
    return np.asarray(p).reshape(-1, 3)


def _voxel_leaves(p, voxel_size, translation):
    """(tile origins, (tiles, 512) active mask) of the voxels holding the points ``p``."""
    idx = p if np.issubdtype(p.dtype, np.integer) else \
        np.floor((p - np.asarray(translation)) / voxel_size + 0.5).astype(np.int64)
    idx = np.unique(idx.astype(np.int64).reshape(-1, 3), axis=0)
    tiles, inv = np.unique(np.floor_divide(idx, 8) * 8, axis=0, return_inverse=True)
    active = np.zeros((len(tiles), 512), bool)
    local = idx - tiles[inv.reshape(-1)]
    active[inv.reshape(-1), local[:, 0] * 64 + local[:, 1] * 8 + local[:, 2]] = True
    return tiles.reshape(-1, 3), active


def _tile_leaves(p, voxel_size, translation):
    """(tile origins, all-active mask) of the 8^3 tiles holding the points ``p``."""
    idx = p if np.issubdtype(p.dtype, np.integer) else \
        np.floor((p - np.asarray(translation)) / voxel_size).astype(np.int64)
    tiles = np.unique(np.floor_divide(idx.astype(np.int64).reshape(-1, 3), 8), axis=0) * 8
    return tiles, np.ones((len(tiles), 512), bool)
