// The CuTe layout algebra in one include: coalesce, composition, complement, divides, products,
// inverses, max_common_vector/layout. Every operation is constexpr and TMAKIT_HD; those with
// preconditions return LayoutResult (value, or a diagnostic with a stable rule id).
#pragma once

#include "tmakit/layout/coalesce.hpp"
#include "tmakit/layout/complement.hpp"
#include "tmakit/layout/composition.hpp"
#include "tmakit/layout/divide.hpp"
#include "tmakit/layout/inverse.hpp"
#include "tmakit/layout/layout.hpp"
#include "tmakit/layout/max_common.hpp"
#include "tmakit/layout/product.hpp"
#include "tmakit/layout/tiler.hpp"
