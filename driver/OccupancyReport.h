//===- OccupancyReport.h - Occupancy in stats and diff reports ------------===//
//
// One way to print a kernel's occupancy (gestell/Occupancy.h) in text and
// JSON, shared by `gestell stats` and `gestell diff` (docs/stats-json.md,
// docs/occupancy.md).
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_DRIVER_OCCUPANCYREPORT_H
#define GESTELL_DRIVER_OCCUPANCYREPORT_H

#include "gestell/Occupancy.h"

#include "llvm/Support/JSON.h"

#include <string>

namespace gestell::driver {

/// "2 blocks/SM, 8 warps/SM (12.5%), limited by shared memory", "cannot
/// launch: shared memory: ...", or "unknown: why".
std::string occupancyText(const KernelOccupancy &O);

/// The `occupancy` value of a kernel: an object, or null (then
/// `occupancy_unknown` says why: written by the caller).
void writeOccupancyJson(llvm::json::OStream &J, const KernelOccupancy &O);

/// The --device option's value as a part, or an error naming the parts.
llvm::Expected<const DevicePart *> parseDeviceOption(llvm::StringRef Name);

} // namespace gestell::driver

#endif
