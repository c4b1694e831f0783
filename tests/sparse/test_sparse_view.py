"""A BsrMatrix in a notebook: the HTML names its sizes and the sparsity picture (decoded with
PIL, an independent PNG reader) shows exactly the stored blocks; large matrices are binned."""

import base64
import io
import re

import numpy as np
from PIL import Image

import warp_interactive as wp
import warp_interactive.sparse as sp


def _picture(html):
    data = re.search(r"src='data:image/png;base64,([^']+)'", html).group(1)
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(data))).convert("L"))


def test_small_matrix_picture_is_its_pattern():
    rows = wp.array([0, 0, 2, 3, 3], dtype=int)
    cols = wp.array([1, 4, 2, 0, 4], dtype=int)
    A = sp.bsr_from_triplets(4, 5, rows, cols, wp.ones((5, 2, 3), dtype=wp.float64))
    html = A._repr_html_()
    assert "BsrMatrix</b> 8&times;15" in html and "blocks 2&times;3" in html and "5 stored" in html
    assert "mat23d" in html and "compact" in html
    img = _picture(html)
    mask = np.zeros((4, 5), dtype=bool)
    mask[[0, 0, 2, 3, 3], [1, 4, 2, 0, 4]] = True
    assert img.shape == (4, 5)
    np.testing.assert_array_equal(img < 255, mask)


def test_large_matrix_is_binned_and_padded_layout_named():
    n = 1000
    A = sp.bsr_diag(wp.ones(n, dtype=float))
    html = A._repr_html_()
    img = _picture(html)
    assert img.shape == (256, 256) and "each pixel" in html
    assert (np.diag(img) < 255).all() and (img[np.triu_indices(256, 2)] == 255).all()
    B = sp.bsr_zeros(3, 3, wp.float32, row_capacity=2)
    assert "padded" in B._repr_html_() and "0 stored" in B._repr_html_()
