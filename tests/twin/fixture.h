/* fixture.h: what the hand-written twin fixtures share (tests/core/test-ascend-twin.c runs them): the
 * tiling the test passes, in the layout of a generated FwKNNNTiling, and a correct copy-in/compute/copy-out
 * kernel, y = 2x over float tiles, that each broken fixture changes in one place (the FIXTURE_* macros). */
#ifndef FW_TWIN_FIXTURE_H
#define FW_TWIN_FIXTURE_H

#include "kernel_operator.h"

struct FixtureTiling
{
  uint64_t totalLength, tileLength, tileNum, rows, rowLength, blockNum, tilesPerBlock;
};

#endif
