/* Broken: each block starts one 32-byte block too early, so neighbouring blocks write the same bytes. */
#define BLOCK_OFFSET(idx, perBlock) ((idx) == 0 ? 0 : (idx) * (perBlock) - 8)
#include "good.cpp"
