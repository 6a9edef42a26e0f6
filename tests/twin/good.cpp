/* A correct kernel: each block doubles its share of x, tile by tile, through VECIN/VECOUT queues. */
#include "fixture.h"

#ifndef TILE_LOOP_END
#define TILE_LOOP_END(blockLen, tile) (((blockLen) + (tile) - 1) / (tile))
#endif
#ifndef BLOCK_OFFSET
#define BLOCK_OFFSET(idx, perBlock) ((idx) * (perBlock))
#endif

extern "C" __global__ __aicore__ void fixture (GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
  const FixtureTiling *t = reinterpret_cast<const FixtureTiling *> (tiling);
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueue;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueue;
  AscendC::GlobalTensor<float> xGm, yGm;
  uint64_t perBlock = t->tileLength * t->tilesPerBlock;
  uint64_t offset = BLOCK_OFFSET (AscendC::GetBlockIdx (), perBlock);
  uint64_t blockLen = offset >= t->totalLength ? 0 : (t->totalLength - offset < perBlock ? t->totalLength - offset : perBlock);
  xGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (x) + offset, blockLen);
  yGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (y) + offset, blockLen);
  pipe.InitBuffer (inQueue, 2, t->tileLength * sizeof (float));
  pipe.InitBuffer (outQueue, 2, t->tileLength * sizeof (float));
  for (uint64_t i = 0; i < TILE_LOOP_END (blockLen, t->tileLength); i++)
    {
      uint32_t n = static_cast<uint32_t> (blockLen - i * t->tileLength < t->tileLength ? blockLen - i * t->tileLength : t->tileLength);
      AscendC::LocalTensor<float> a = inQueue.AllocTensor<float> ();
      AscendC::DataCopy (a, xGm[i * t->tileLength], n);
      inQueue.EnQue (a);
      AscendC::LocalTensor<float> b = inQueue.DeQue<float> ();
      AscendC::LocalTensor<float> c = outQueue.AllocTensor<float> ();
      AscendC::Muls (c, b, 2.0f, static_cast<int32_t> (n));
      outQueue.EnQue (c);
      inQueue.FreeTensor (b);
      AscendC::LocalTensor<float> d = outQueue.DeQue<float> ();
      AscendC::DataCopy (yGm[i * t->tileLength], d, n);
      outQueue.FreeTensor (d);
    }
}
