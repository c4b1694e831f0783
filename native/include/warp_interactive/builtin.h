// The one header generated kernels include: the whole builtin library, in dependency order.
#pragma once

#include "scalar.h"
#include "core.h"
#include "vec.h"
#include "mat.h"
#include "quat.h"
#include "transform.h"
#include "spatial.h"
#include "atomic.h"
#include "utility.h"
#include "rand.h"
#include "noise.h"
#include "bvh.h"
#include "mesh.h"
#include "hashgrid.h"
#include "volume.h"
#include "tile.h"
