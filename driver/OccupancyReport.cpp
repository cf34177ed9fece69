//===- OccupancyReport.cpp - Occupancy in stats and diff reports ----------===//
#include "OccupancyReport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

using namespace llvm;

namespace gestell::driver {

namespace {
std::string limiterText(StringRef L) {
  if (L == "shared")
    return "shared memory";
  return L.str();
}
} // namespace

std::string occupancyText(const KernelOccupancy &K) {
  if (!K.Value)
    return "unknown: " + K.Unknown;
  const Occupancy &O = *K.Value;
  std::string On = K.Device.empty() ? "compute capability " + O.Capability
                                    : K.Device + " (" + O.Capability + ")";
  if (!O.Launchable)
    return "cannot launch on " + On + ": " + O.WhyNot;
  std::string S = std::to_string(O.BlocksPerSM) +
                  (O.BlocksPerSM == 1 ? " block/SM, " : " blocks/SM, ") +
                  std::to_string(O.WarpsPerSM) + " warps/SM (" +
                  formatv("{0:F1}", O.Percent).str() + "%) on " + On;
  S += O.Limiter == "none" ? ", full" : ", limited by " + limiterText(O.Limiter);
  if (O.TmemBlocksPerSM)
    S += "; tensor memory lets " + std::to_string(*O.TmemBlocksPerSM) +
         " blocks share an SM";
  return S;
}

void writeOccupancyJson(json::OStream &J, const KernelOccupancy &K) {
  if (!K.Value) {
    J.value(nullptr);
    return;
  }
  const Occupancy &O = *K.Value;
  auto Limit = [&](StringRef Key, unsigned V) {
    J.attribute(Key, V == UINT_MAX ? json::Value(nullptr) : json::Value(V));
  };
  J.object([&] {
    J.attribute("device", K.Device.empty() ? json::Value(nullptr)
                                           : json::Value(K.Device));
    J.attribute("compute_capability", O.Capability);
    J.attribute("blocks_per_sm", O.BlocksPerSM);
    J.attribute("warps_per_sm", O.WarpsPerSM);
    J.attribute("percent", std::round(O.Percent * 10) / 10);
    J.attribute("limiter", O.Limiter);
    J.attribute("launchable", O.Launchable);
    J.attribute("why_not", O.Launchable ? json::Value(nullptr)
                                        : json::Value(O.WhyNot));
    J.attribute("threads", K.Input.Threads);
    J.attribute("shared_per_block", O.SharedPerBlock);
    J.attributeObject("blocks_by", [&] {
      Limit("registers", O.ByRegisters);
      Limit("shared", O.ByShared);
      Limit("warps", O.ByWarps);
      Limit("blocks", O.ByBlocks);
    });
    J.attribute("tmem_blocks_per_sm",
                O.TmemBlocksPerSM ? json::Value(*O.TmemBlocksPerSM)
                                  : json::Value(nullptr));
    J.attribute("cluster_size", K.Input.ClusterSize);
  });
}

Expected<const DevicePart *> parseDeviceOption(StringRef Name) {
  if (Name.empty())
    return nullptr;
  if (const DevicePart *P = findDevicePart(Name))
    return P;
  std::string Known;
  ListSeparator LS(", ");
  for (const DevicePart &P : deviceParts())
    Known += (Twine(LS) + P.Name).str();
  return createStringError(inconvertibleErrorCode(),
                           "--device: unknown part '%s' (known: %s)",
                           Name.str().c_str(), Known.c_str());
}

} // namespace gestell::driver
