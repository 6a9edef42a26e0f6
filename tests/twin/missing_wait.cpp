/* Broken: data loaded by DataCopy (MTE2) into a TBuf is read by a vector instruction with no
 * SetFlag/WaitFlag<MTE2_V> between them (no queue hand-off either). */
#include "fixture.h"

extern "C" __global__ __aicore__ void fixture (GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
  (void) tiling;
  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;
  AscendC::GlobalTensor<float> xGm, yGm;
  xGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (x), 64);
  yGm.SetGlobalBuffer (reinterpret_cast<__gm__ float *> (y), 64);
  pipe.InitBuffer (buf, 64 * sizeof (float));
  pipe.InitBuffer (outQueue, 1, 64 * sizeof (float));
  AscendC::LocalTensor<float> a = buf.Get<float> ();
  AscendC::DataCopy (a, xGm, 64);
#ifdef WITH_WAIT
  AscendC::TEventID id = pipe.FetchEventID (AscendC::HardEvent::MTE2_V);
  AscendC::SetFlag<AscendC::HardEvent::MTE2_V> (id);
  AscendC::WaitFlag<AscendC::HardEvent::MTE2_V> (id);
#endif
  AscendC::LocalTensor<float> c = outQueue.AllocTensor<float> ();
  AscendC::Muls (c, a, 2.0f, 64);
  outQueue.EnQue (c);
  AscendC::LocalTensor<float> d = outQueue.DeQue<float> ();
  AscendC::DataCopy (yGm, d, 64);
  outQueue.FreeTensor (d);
}
