"""NanoVDB (32.x) grid buffers and .nvdb files: write a grid from leaves, read files back.

Layout (all offsets checked against NanoVDB's own tables, see docs/geometry.md):
  GridData 672 B | TreeData 64 B | RootData + tiles | upper nodes (32^3) | lower (16^3) | leaves (8^3)
Node arrays are breadth first; children are ordered by their index in the parent's table and
root tiles by key. Child offsets are bytes from the parent node (root tiles: from RootData).
File: FileHeader 16 B, per grid FileMetaData 176 B + name + grid (zip: int64 size + zlib data).
"""

import struct
import zlib

import numpy as np

MAGIC = 0x304244566F6E614E            # "NanoVDB0" (legacy magic, read by every 32.x reader)
MAGICS = (MAGIC, 0x314244566F6E614E, 0x324244566F6E614E)   # NanoVDB0/1/2 accepted on read
VERSION = (32 << 21) | (6 << 10) | 0
CODEC_NONE, CODEC_ZIP, CODEC_BLOSC = 0, 1, 2
GRID, TREE = 672, 64
FLOAT, INT32, VEC3F, VEC4F, VEC4D = 1, 4, 6, 17, 18
INDEX, ON_INDEX = 19, 20            # ValueIndex / ValueOnIndex: no values, an index per voxel
INDEX_TYPES = (INDEX, ON_INDEX)
GRID_TYPES = {FLOAT: ("float32", 1), INT32: ("int32", 1), VEC3F: ("float32", 3),
              VEC4F: ("float32", 4), VEC4D: ("float64", 4)}
CLASS_UNKNOWN, CLASS_INDEX = 0, 8
FLAG_HAS_BBOX, FLAG_BREADTH_FIRST = 2, 32


def _r32(x):
    return (x + 31) & ~31


def _align(x, a):
    return (x + a - 1) & ~(a - 1)


def layout(grid_type):
    """Byte sizes/offsets of one grid type's nodes: value size t aligned to its scalar (a), stats
    float (double for double grids, S). Index grids store uint64 tile values and background and
    no stats; their leaves end after the first index (uint64 at 80) and the packed prefix sums
    (uint64 at 88)."""
    if grid_type in INDEX_TYPES:
        return dict(value=8, root=96, tile=32, stride=8, bg=32, up_table=8256, up_size=270400,
                    lo_table=1088, lo_size=33856, leaf_values=80, leaf_size=96)
    if grid_type not in GRID_TYPES:
        raise ValueError(f"NanoVDB grid type {grid_type} is not supported (float, int32, vec3f, "
                         f"vec4f, vec4d, index and on-index grids are)")
    scalar, n = GRID_TYPES[grid_type]
    a = np.dtype(scalar).itemsize
    t, stats = a * n, 2 * (8 if a == 8 else 4)
    stride = max(8, _align(t, 8))        # a table entry: the value or an int64 child offset
    up_table, lo_table = _r32(32 + 2 * 4096 + 2 * t + stats), _r32(32 + 2 * 512 + 2 * t + stats)
    leaf_values = _r32(80 + 2 * t + stats)
    bg, tile_value = _align(28, a), _align(20, a)
    return dict(value=t, root=_r32(bg + 3 * t + stats), tile=_r32(tile_value + t), stride=stride, bg=bg,
                up_table=up_table, up_size=up_table + 32768 * stride,
                lo_table=lo_table, lo_size=lo_table + 4096 * stride,
                leaf_values=leaf_values, leaf_size=leaf_values + 512 * t)


def root_key(o):
    o = o.astype(np.int64) & 0xFFFFFFFF
    return ((o[:, 2] >> 12) | ((o[:, 1] >> 12) << 21) | ((o[:, 0] >> 12) << 42)).astype(np.uint64)


def upper_order(o):
    """A sort key of the upper nodes holding ``o``: their (i, j, k) >> 12 compared as signed
    integers, x first (the order warp-lang's builders store root tiles in, so voxel indices
    and get_voxels() rows agree with warp-lang's for negative coordinates too; the root key
    compares them as unsigned, and lookups scan the tiles, so any order reads back)."""
    u = (o.astype(np.int64) >> 12) + (1 << 20)
    return (u[:, 0] << 42) | (u[:, 1] << 21) | u[:, 2]


def _child_index(o, mask, shift, log2):
    c = (o & mask) >> shift
    return (c[:, 0] << (2 * log2)) | (c[:, 1] << log2) | c[:, 2]


_VOX = np.stack(np.meshgrid(np.arange(8), np.arange(8), np.arange(8), indexing="ij"), -1).reshape(512, 3)


def build_grid(grid_type, origins, values, active, background, voxel_size, translation, name=""):
    """A NanoVDB grid buffer (uint8, 32-byte aligned) from leaves.

    origins (N, 3) int leaf origins (multiples of 8); values (N, 512[, 3]) leaf values in
    x-major order (offset = x*64 + y*8 + z); active (N, 512) bool. Index grids take
    values=None: ValueIndex numbers every voxel of every leaf, ValueOnIndex the active ones,
    from 1 in leaf order (0 is the background's index).
    """
    L = layout(grid_type)
    index = grid_type in INDEX_TYPES
    vdt = np.uint64 if index else np.dtype(GRID_TYPES[grid_type][0])
    if index:
        values = np.zeros(len(np.asarray(origins).reshape(-1, 3)), np.uint64)
    origins = np.asarray(origins, np.int64).reshape(-1, 3)
    order, lowers, leaf_parent, uppers, lower_parent = _tree_order(origins)
    origins, values, active = origins[order], np.asarray(values)[order], np.asarray(active)[order]
    n_leaf, n_lo, n_up = len(origins), len(lowers), len(uppers)
    root_off = TREE
    up_off = root_off + L["root"] + n_up * L["tile"]
    lo_off = up_off + n_up * L["up_size"]
    leaf_off = lo_off + n_lo * L["lo_size"]
    size = GRID + leaf_off + n_leaf * L["leaf_size"]
    buf = aligned_bytes(size)

    vmin, vmax = _leaf_bboxes(origins, active)
    lo_min, lo_max = _bbox_of(leaf_parent, n_lo, vmin, vmax)
    up_min, up_max = _bbox_of(lower_parent, n_up, lo_min, lo_max)
    all_min = up_min.min(axis=0) if n_up else np.zeros(3, np.int64)
    all_max = up_max.max(axis=0) if n_up else np.zeros(3, np.int64)
    bg = np.asarray(background, vdt).reshape(-1)

    if index:
        values, value_count = _index_words(active, grid_type == ON_INDEX)
    _write_leaves(buf, GRID + leaf_off, L, vmin, vmax, active, np.ascontiguousarray(values, vdt))
    _write_internal(buf, GRID + lo_off, L["lo_size"], L["lo_table"], L["stride"], 4096, lowers,
                    lo_min, lo_max, leaf_parent, _child_index(origins, 127, 3, 4),
                    leaf_off - lo_off, L["leaf_size"], bg)
    _write_internal(buf, GRID + up_off, L["up_size"], L["up_table"], L["stride"], 32768, uppers,
                    up_min, up_max, lower_parent, _child_index(lowers, 4095, 7, 5),
                    lo_off - up_off, L["lo_size"], bg)
    _write_root(buf, GRID + root_off, L, all_min, all_max, bg, uppers, up_off - root_off)
    put(buf, GRID, "<4Q", leaf_off if n_leaf else 0, lo_off if n_lo else 0, up_off if n_up else 0,
        root_off)
    put(buf, GRID + 32, "<6IQ", n_leaf, n_lo, n_up, 0, 0, 0, int(active.sum()))
    _write_grid_header(buf, size, grid_type, name, voxel_size, translation, all_min, all_max,
                       CLASS_INDEX if index else CLASS_UNKNOWN, value_count if index else 0)
    return buf


def _index_words(active, on_only):
    """Per leaf (first index, packed prefix sums) of an index grid, and the value count.

    ValueOnIndex: a leaf's k-th active voxel (in offset order) has index first + k; the prefix
    word holds, 9 bits per mask word w = 1..7, the active count of words 0..w-1."""
    n = len(active)
    counts = active.sum(axis=1) if on_only else np.full(n, 512)
    first = 1 + np.concatenate([[0], np.cumsum(counts)])[:n].astype(np.uint64)   # n = 0: an empty grid
    per_word = active.reshape(n, 8, 64).sum(axis=2).astype(np.uint64)
    before = np.cumsum(per_word, axis=1)[:, :7]                    # words 0..w-1, w = 1..7
    prefix = (before << (np.arange(7, dtype=np.uint64) * np.uint64(9))[None]).sum(axis=1)
    words = np.stack([first, prefix.astype(np.uint64)], axis=1)    # (n, 2) uint64 = 16 bytes
    return words, 1 + int(counts.sum())


def _tree_order(origins):
    """Leaf order and the lower/upper nodes: breadth first, children by their table index in
    the parent, upper nodes (root tiles) by their signed coordinates (``upper_order``). Returns
    (order, lowers, parent of each leaf, uppers, parent of each lower)."""
    order = np.lexsort((_child_index(origins, 127, 3, 4), _child_index(origins, 4095, 7, 5),
                        upper_order(origins)))
    lowers, leaf_parent = np.unique(origins[order] & ~127, axis=0, return_inverse=True)
    # np.unique sorts lexicographically by xyz; reorder lowers to (upper node, upper index)
    lo_order = np.lexsort((_child_index(lowers, 4095, 7, 5), upper_order(lowers)))
    lowers, leaf_parent = lowers[lo_order], _ranks(lo_order)[leaf_parent.reshape(-1)]
    uppers, lower_parent = np.unique(lowers & ~4095, axis=0, return_inverse=True)
    up_order = np.argsort(upper_order(uppers), kind="stable")
    uppers, lower_parent = uppers[up_order], _ranks(up_order)[lower_parent.reshape(-1)]
    return order, lowers, leaf_parent, uppers, lower_parent


def _ranks(order):
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rank


_BIG = np.int64(2 ** 40)


def _leaf_bboxes(origins, active):
    """Per leaf, the index bounds of its active voxels (the origin for a leaf with none)."""
    coords = origins[:, None, :] + _VOX[None]
    vmin = np.where(active[..., None], coords, _BIG).min(axis=1)
    vmax = np.where(active[..., None], coords, -_BIG).max(axis=1)
    empty = ~active.any(axis=1)
    vmin[empty], vmax[empty] = origins[empty], origins[empty]
    return vmin, vmax


def _bbox_of(parent, count, lo, hi):
    out_lo = np.full((count, 3), _BIG, np.int64)
    out_hi = np.full((count, 3), -_BIG, np.int64)
    np.minimum.at(out_lo, parent, lo)
    np.maximum.at(out_hi, parent, hi)
    return out_lo, out_hi


def _write_leaves(buf, start, L, vmin, vmax, active, values):
    n = len(vmin)
    if n == 0:
        return
    view = buf[start:start + n * L["leaf_size"]].reshape(n, -1)
    view[:, 0:12] = vmin.astype(np.int32).view(np.uint8).reshape(n, 12)
    view[:, 12:15] = np.clip(vmax - vmin, 0, 7).astype(np.uint8)
    view[:, 15] = FLAG_HAS_BBOX
    view[:, 16:80] = np.packbits(active, axis=1, bitorder="little")
    view[:, L["leaf_values"]:] = values.reshape(n, -1).view(np.uint8)


def _write_root(buf, r, L, all_min, all_max, bg, uppers, first_child):
    """RootData (bbox, table size, background) and one child tile per upper node."""
    n = len(uppers)
    put(buf, r, "<6i", *all_min, *all_max)
    put(buf, r + 24, "<I", n)
    buf[r + L["bg"]:r + L["bg"] + bg.nbytes] = bg.view(np.uint8)
    if n == 0:
        return
    tiles = buf[r + L["root"]:r + L["root"] + n * L["tile"]].reshape(n, L["tile"])
    tiles[:, 0:8] = root_key(uppers).view(np.uint8).reshape(n, 8)
    child = first_child + np.arange(n, dtype=np.int64) * L["up_size"]
    tiles[:, 8:16] = child.view(np.uint8).reshape(n, 8)


def _write_internal(buf, start, node_size, table, stride, count, nodes, bmin, bmax, child_parent,
                    child_slot, child_base, child_size, bg):
    """Fill internal nodes: bbox, child masks, child offsets (from the node) and tile values."""
    n = len(nodes)
    if n == 0:
        return
    view = buf[start:start + n * node_size].reshape(n, node_size)
    view[:, 0:24] = np.concatenate([bmin, bmax], axis=1).astype(np.int32).view(np.uint8)
    view[:, 24:32] = np.array([FLAG_HAS_BBOX, 0, 0, 0, 0, 0, 0, 0], np.uint8)
    mbytes = count // 8
    child_mask = np.zeros((n, count), bool)
    child_mask[child_parent, child_slot] = True
    view[:, 32 + mbytes:32 + 2 * mbytes] = np.packbits(child_mask, axis=1, bitorder="little")
    tiles = view[:, table:table + count * stride].reshape(n, count, stride)
    tiles[:, :, :bg.nbytes] = bg.view(np.uint8)    # inactive tiles hold the background
    offsets = (child_base + np.arange(len(child_parent)) * child_size
               - child_parent * node_size).astype(np.int64)
    tiles[child_parent, child_slot, :8] = offsets[:, None].view(np.uint8).reshape(-1, 8)
    if stride > 8:
        tiles[child_parent, child_slot, 8:] = 0


def _write_grid_header(buf, size, grid_type, name, voxel_size, translation, imin, imax,
                       grid_class=CLASS_UNKNOWN, value_count=0):
    vs = np.asarray(voxel_size, np.float64).reshape(-1)
    vs = np.repeat(vs, 3) if vs.size == 1 else vs
    tr = np.asarray(translation, np.float64).reshape(3)
    put(buf, 0, "<QQIIIIQ", MAGIC, 0xFFFFFFFFFFFFFFFF, VERSION, FLAG_HAS_BBOX | FLAG_BREADTH_FIRST,
        0, 1, size)
    raw = name.encode()[:255]
    buf[40:40 + len(raw)] = np.frombuffer(raw, np.uint8)
    mat, inv = np.diag(vs), np.diag(1.0 / vs)
    put(buf, 296, "<9f9f3ff", *mat.reshape(-1), *inv.reshape(-1), *tr, 1.0)
    put(buf, 384, "<9d9d3dd", *mat.reshape(-1), *inv.reshape(-1), *tr, 1.0)
    wmin, wmax = np.asarray(imin) * vs + tr, (np.asarray(imax) + 1) * vs + tr
    put(buf, 560, "<6d3d", *wmin, *wmax, *vs)
    # index grids: class IndexGrid, data1 = the number of indices (background included)
    put(buf, 632, "<IIqIIQQ", grid_class, grid_type, 0, 0, 0, value_count, 0)


def put(buf, offset, fmt, *values):
    data = struct.pack(fmt, *values)
    buf[offset:offset + len(data)] = np.frombuffer(data, np.uint8)


def aligned_bytes(size, data=None):
    """A zeroed (or copied) uint8 array whose data starts on a 32-byte boundary."""
    raw = np.zeros(size + 32, np.uint8)
    start = (-raw.ctypes.data) % 32
    out = raw[start:start + size]
    if data is not None:
        out[:] = np.frombuffer(data, np.uint8, count=size)
    return out


# --- grid header fields ----------------------------------------------------------------------------
def grid_info(buf):
    """The header fields of a grid buffer (dict); ValueError if it is not a NanoVDB grid."""
    if len(buf) < GRID + TREE:
        raise ValueError(f"a NanoVDB grid is at least {GRID + TREE} bytes, got {len(buf)}")
    magic, _, version, flags, _, _, size = struct.unpack_from("<QQIIIIQ", buf, 0)
    if magic not in MAGICS:
        raise ValueError(f"not a NanoVDB grid (magic {magic:#x})")
    if version >> 21 != 32:
        raise ValueError(f"NanoVDB major version {version >> 21} is not supported (32 is)")
    name = bytes(buf[40:296]).split(b"\0")[0].decode(errors="replace")
    vs = struct.unpack_from("<3d", buf, 608)
    grid_class, grid_type = struct.unpack_from("<II", buf, 632)
    tr = struct.unpack_from("<3d", buf, 528)
    return dict(size=size, name=name, voxel_size=vs, translation=tr, grid_class=grid_class,
                grid_type=grid_type, version=version)


def leaves(buf):
    """The leaves of a grid buffer in storage order: (origins (N, 3) int64, active (N, 512)
    bool, first index (N,) uint64 or None for grids with values)."""
    info = grid_info(buf)
    L = layout(info["grid_type"])
    tree = struct.unpack_from("<4Q6IQ", buf, GRID)
    n = tree[4]
    if n == 0:
        first = np.zeros(0, np.uint64) if info["grid_type"] in INDEX_TYPES else None
        return np.zeros((0, 3), np.int64), np.zeros((0, 512), bool), first
    start = GRID + tree[0]
    view = np.asarray(buf[start:start + n * L["leaf_size"]]).reshape(n, L["leaf_size"])
    origins = view[:, 0:12].copy().view(np.int32).reshape(n, 3).astype(np.int64) & ~7
    active = np.unpackbits(view[:, 16:80], axis=1, bitorder="little").astype(bool)
    first = view[:, 80:88].copy().view(np.uint64).reshape(n) \
        if info["grid_type"] in INDEX_TYPES else None
    return origins, active, first


# --- files ------------------------------------------------------------------------------------------
def split_grids(buf):
    """The grid buffers (views) of a buffer holding grid_count grids back to back."""
    out, pos = [], 0
    while pos < len(buf):
        info = grid_info(buf[pos:])
        out.append(buf[pos:pos + info["size"]])
        pos += info["size"]
        if struct.unpack_from("<II", buf, pos - info["size"] + 24) == (len(out) - 1, len(out)):
            break   # the last grid of its set
    return out


def write_file(path_or_file, grids, name="", codec=CODEC_NONE):
    """A .nvdb file (one segment) holding ``grids`` (a grid buffer or a list of them): all the
    metadata records, then each grid's data."""
    grids = [grids] if isinstance(grids, np.ndarray) else list(grids)
    metas, payloads = [], []
    for g in grids:
        meta, payload = _grid_record(g, name if len(grids) == 1 else "", codec)
        metas.append(meta)
        payloads.append(payload)
    blob = struct.pack("<QIHH", MAGIC, VERSION, len(grids), codec) + b"".join(metas) + b"".join(payloads)
    if hasattr(path_or_file, "write"):
        path_or_file.write(blob)
    else:
        with open(path_or_file, "wb") as f:
            f.write(blob)


def _grid_record(grid, name, codec):
    """(FileMetaData + name, the grid's data in the codec) of one grid."""
    info = grid_info(grid)
    data = bytes(grid[:info["size"]])
    if codec == CODEC_ZIP:
        packed = zlib.compress(data)
        payload = struct.pack("<q", len(packed)) + packed
    elif codec == CODEC_NONE:
        payload = data
    else:
        raise ValueError(f"unsupported codec {codec!r}: use 'none' or 'zip'")
    name = name or info["name"]
    raw_name = name.encode() + b"\0"
    tree = struct.unpack_from("<4Q6IQ", grid, GRID)
    imin_max = struct.unpack_from("<6i", grid, GRID + tree[3])
    meta = struct.pack("<QQQQII6d6i3dI4I3IHHI", info["size"], len(payload), _name_key(name), tree[10],
                       info["grid_type"], info["grid_class"], *struct.unpack_from("<6d", grid, 560),
                       *imin_max, *info["voxel_size"], len(raw_name), tree[4], tree[5], tree[6], 1,
                       tree[7], tree[8], tree[9], codec, 0, VERSION)
    assert len(meta) == 176
    return meta + raw_name, payload


def _name_key(name):
    h = 0
    for c in name.encode():
        h = (31 * h + c) & 0xFFFFFFFFFFFFFFFF
    return h


def read(data):
    """One aligned buffer holding every grid of a .nvdb file's bytes (each segment's grids, in
    order), or a raw grid buffer (one grid or several back to back) as is."""
    data = memoryview(data).cast("B")
    if len(data) < 16:
        raise ValueError(f"not a NanoVDB file: only {len(data)} bytes")
    magic = struct.unpack_from("<Q", data, 0)[0]
    if magic not in MAGICS:
        raise ValueError(f"not a NanoVDB file (magic {magic:#x})")
    if _raw_length(data) == len(data):
        return aligned_bytes(len(data), data)
    grids, pos = [], 0
    while pos + 16 <= len(data):
        pos = _read_segment(data, pos, grids)
    joined = b"".join(grids)
    buf = aligned_bytes(len(joined), joined)
    split_grids(buf)   # every grid's header is checked
    return buf


def _raw_length(data):
    """The total size of the grids a raw grid buffer holds back to back (0 if it is not one)."""
    pos, index = 0, 0
    while len(data) - pos >= GRID:
        magic, _, _, _, idx, count, size = struct.unpack_from("<QQIIIIQ", data, pos)
        if magic not in MAGICS or idx != index or size < GRID or count < 1:
            return 0
        pos, index = pos + size, index + 1
        if index == count:
            return pos
    return 0


def _read_segment(data, pos, grids):
    """Append the grids of the file segment at ``pos``; the position after it."""
    magic, _, count, _ = struct.unpack_from("<QIHH", data, pos)
    if magic not in MAGICS:
        raise ValueError(f"not a NanoVDB file segment at byte {pos} (magic {magic:#x})")
    pos += 16
    metas = []
    for _ in range(count):
        if pos + 176 > len(data):
            raise ValueError(f"truncated NanoVDB file: {count} grids announced, their metadata "
                             f"ends past the {len(data)} bytes")
        meta = struct.unpack_from("<QQQQII6d6i3dI4I3IHHI", data, pos)
        metas.append(meta)
        pos += 176 + meta[21]
    for meta in metas:
        grid_size, grid_codec = meta[0], meta[29]
        if grid_codec == CODEC_NONE:
            grid = bytes(data[pos:pos + grid_size])
            pos += grid_size
        elif grid_codec == CODEC_ZIP and pos + 8 <= len(data):
            n = struct.unpack_from("<q", data, pos)[0]
            grid = zlib.decompress(bytes(data[pos + 8:pos + 8 + n]))
            pos += 8 + n
        else:
            raise ValueError(f"NanoVDB codec {grid_codec} (BLOSC) is not supported: save the file "
                             f"uncompressed or zip-compressed")
        if len(grid) != grid_size:
            raise ValueError(f"truncated NanoVDB file: grid of {grid_size} bytes, got {len(grid)}")
        grids.append(grid)
    return pos
