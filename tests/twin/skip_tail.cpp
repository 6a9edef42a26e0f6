/* Broken: the tile loop runs over whole tiles only, so the last partial tile of each block is never
 * computed (the twin reports the output bytes nobody wrote; the numbers are wrong there too). */
#define TILE_LOOP_END(blockLen, tile) ((blockLen) / (tile))
#include "good.cpp"
