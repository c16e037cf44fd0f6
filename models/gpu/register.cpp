#include "models/gpu/register.h"

#include "models/gpu/dma_engine.h"
#include "models/gpu/gpu_spec.h"

namespace t3sim::gpu {

void register_gpu_models(Registry& r) {
  r.add(ComponentType{"gpu",
                      "GPU compute: CU pool, GEMM kernels as WG waves with a streamed K loop, L2 "
                      "slice cache, memory transactions, DMA engines",
                      gpu_params, nlohmann::json::object(), nullptr});
  r.add(ComponentType{"dma", "DMA (copy) engines of one GPU: descriptor queues, chunked transfers",
                      dma_params, nlohmann::json::object(), nullptr});
}

}  // namespace t3sim::gpu
