"""The device tests of test_geometry_cuda.py on the stand-in driver (tests/support/cuda_fake.py: device
memory is host memory, "CUDA" kernels run through their CPU build, the NVRTC CUBINs are real),
so the geometry's CUDA path (uploads, device descriptors, refits and rebuilds through the host)
runs on every CI run, GPU or not."""

import pytest

pytest.importorskip("cuda.bindings.nvrtc", reason='the CUDA extra is not installed (pip install -e ".[cuda]": cuda-bindings and the NVRTC wheel)')

# the stand-in driver fixture (autouse: every test here runs with it)
from tests.cuda_backend.test_cuda_fake_driver import fake_cuda  # noqa: F401
# the same test functions, collected here again with the fake device
from tests.geometry.test_geometry_cuda import (test_bvh_on_device_boxes_and_refit_match_brute_force,  # noqa: F401
                                test_closest_points_signs_and_box_queries_on_the_device,
                                test_grid_sampling_example_and_stores_on_the_device,
                                test_index_volume_on_the_device_matches_the_cpu,
                                test_mixed_devices_are_refused_with_the_devices_named,
                                test_neighbour_sum_example_and_rebuild_on_the_device,
                                test_raycast_example_and_refit_on_the_device_match_the_cpu,
                                test_rebuildable_volume_on_the_device_matches_the_cpu)


@pytest.fixture
def device():
    return "cuda:0"


def test_geometry_kernels_were_launched_on_the_stand_in_gpu(fake_cuda):  # noqa: F811
    """The stand-in really took the launches (not a silent fall-back to the CPU)."""
    test_neighbour_sum_example_and_rebuild_on_the_device("cuda:0")
    names = [name for name, *_ in fake_cuda.launches]
    assert any(name.startswith("sum_") and name.endswith("_cuda_forward") for name in names)
