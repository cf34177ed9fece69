//===- OccupancyCheck.cpp - nvidia-occupancy ------------------------------===//
#include "OccupancyCheck.h"

#include "gestell/Occupancy.h"
#include "gestell/utils/KernelCode.h"
#include "gestell/utils/Locate.h"
#include "gestell/utils/OptionalStages.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace gestell::nvidia {

CheckInfo OccupancyCheck::info() {
  CheckInfo I;
  I.Id = "nvidia-occupancy";
  I.Summary = "The kernel cannot launch on its target, or fewer of its blocks "
              "fit on an SM than in the baseline build";
  I.Description =
      "Blocks per SM from the cubin's registers and static shared memory, "
      "the launch's dynamic shared memory (.json) and threads (PTX "
      ".reqntid), with NVIDIA's occupancy rules for the target's compute "
      "capability (or --device). A warning when the kernel cannot launch "
      "(Triton raises OutOfResources, so autotuners skip it; max-autotune "
      "caches keep such candidates), or, with --baseline, when fewer blocks "
      "fit on an SM than in the baseline build, naming the resource that "
      "crossed a boundary.";
  I.Category = "performance";
  I.Precision = "high"; // docs/checks/<id>.md, "On real code"
  I.Tags = {"occupancy", "registers", "shared-memory"};
  I.DefaultLevel = Level::Warning;
  I.Stages = {Stage::Cubin};
  return I;
}

OccupancyCheck::OccupancyCheck(StringRef Name, CheckContext &Context)
    : Check(Name, Context) {}

namespace {

/// Where a finding about the whole kernel goes: the PTX `.entry` line when
/// there is a PTX (a line GitHub can show), else the cubin.
DiagLoc kernelLoc(KernelView &V) {
  const Kernel &K = V.kernel();
  if (K.has(Stage::PTX))
    if (const PtxModule *P = optionalPtx(V))
      if (const PtxFunction *F = kernelFunction(*P, K.Name))
        return locate(*P, *F);
  return DiagLoc::artifact(Stage::Cubin, K.path(Stage::Cubin));
}

/// The Python line of the kernel: the first PTX instruction with one.
std::optional<DiagLoc> kernelSource(KernelView &V) {
  const Kernel &K = V.kernel();
  if (!K.has(Stage::PTX))
    return std::nullopt;
  const PtxModule *P = optionalPtx(V);
  if (!P)
    return std::nullopt;
  if (const PtxFunction *F = kernelFunction(*P, K.Name))
    for (const PtxInstruction &I : F->Instructions)
      if (std::optional<DiagLoc> S = pythonSource(*P, I))
        return S;
  return std::nullopt;
}

std::string resourcesText(const OccupancyInput &In) {
  return std::to_string(In.Registers) + " registers per thread, " +
         std::to_string(In.Threads) + " threads, " +
         std::to_string(In.StaticShared + In.DynamicShared) +
         " bytes of shared memory per block";
}

std::string where(const KernelOccupancy &K) {
  return K.Device.empty()
             ? "compute capability " + K.Value->Capability
             : K.Device + " (compute capability " + K.Value->Capability + ")";
}

/// What changed to cost blocks, and the stage that made it.
struct Cause {
  std::string What, Stage, Hint;
};

Cause causeOf(const KernelOccupancy &Base, const KernelOccupancy &Head) {
  const Occupancy &B = *Base.Value, &H = *Head.Value;
  const OccupancyInput &BI = Base.Input, &HI = Head.Input;
  std::string Blocks = std::to_string(B.BlocksPerSM) + " -> " +
                       std::to_string(H.BlocksPerSM) + " blocks per SM";
  if (H.Limiter == "registers" ||
      (H.ByRegisters < B.ByRegisters && H.ByRegisters == H.BlocksPerSM))
    return {"registers " + std::to_string(BI.Registers) + " -> " +
                std::to_string(HI.Registers) +
                " per thread crossed the "
                "boundary: " +
                Blocks,
            "ptxas register allocation",
            "ptxas now needs more registers per thread: look at what grew "
            "the live set in the TTGIR or PTX (a new conversion, wider "
            "accumulators, an extra stage), or cap it with maxnreg"};
  if (H.Limiter == "shared" ||
      (H.ByShared < B.ByShared && H.ByShared == H.BlocksPerSM))
    return {"shared memory " +
                std::to_string(BI.StaticShared + BI.DynamicShared) + " -> " +
                std::to_string(HI.StaticShared + HI.DynamicShared) +
                " bytes per block: " + Blocks,
            "TritonGPU shared-memory allocation (num_stages)",
            "the kernel asks for more shared memory per block: more "
            "pipeline stages (num_stages), larger tiles, or new "
            "ttg.local_alloc buffers in the TTGIR"};
  return {"threads " + std::to_string(BI.Threads) + " -> " +
              std::to_string(HI.Threads) + " per block: " + Blocks,
          "the launch configuration (num_warps)",
          "more warps per block leave room for fewer blocks: compare "
          "num_warps and the warp-specialized partitions' warps"};
}

} // namespace

Error OccupancyCheck::check(CheckInput &In) {
  const Kernel &K = In.Kernel.kernel();
  KernelOccupancy Head = kernelOccupancy(In.Kernel, In.Kernel.options().Device);
  if (Head.WrongDevice)
    return createStringError(inconvertibleErrorCode(),
                             "--device=" + Head.Device + ": " + Head.Unknown);
  if (!Head.Value)
    return Error::success(); // stats says why; nothing to judge
  const Occupancy &H = *Head.Value;

  if (!H.Launchable) {
    auto D =
        diag(kernelLoc(In.Kernel), "kernel '" + K.Name + "' cannot launch on " +
                                       where(Head) + ": " + H.WhyNot);
    D.source(kernelSource(In.Kernel));
    D.related(DiagLoc::artifact(Stage::Cubin, K.path(Stage::Cubin)),
              "the cubin: " + resourcesText(Head.Input));
    D.note("Triton raises OutOfResources when it loads the kernel, so an "
           "autotuner skips this configuration; caches of max-autotune runs "
           "keep such candidates");
    D.hint("the configuration (num_stages, tiles, num_warps)",
           "fewer pipeline stages or smaller tiles need less shared memory "
           "per block; fewer warps or a register cap (maxnreg) fewer "
           "registers per block");
    D.context("cannot-launch")
        .context(StringRef(H.WhyNot).split(':').first)
        .context(H.Capability);
    return Error::success();
  }

  if (!In.Baseline)
    return Error::success();
  KernelOccupancy Base =
      kernelOccupancy(*In.Baseline, In.Kernel.options().Device);
  if (!Base.Value || !Base.Value->Launchable ||
      Base.Value->Capability != H.Capability ||
      H.BlocksPerSM >= Base.Value->BlocksPerSM)
    return Error::success();
  const Occupancy &B = *Base.Value;
  Cause C = causeOf(Base, Head);
  auto D = diag(kernelLoc(In.Kernel),
                "occupancy of kernel '" + K.Name + "' fell: " + C.What + " (" +
                    formatv("{0:F1}", B.Percent).str() + "% -> " +
                    formatv("{0:F1}", H.Percent).str() +
                    "% of the warps an SM "
                    "holds, on " +
                    where(Head) + ")");
  D.source(kernelSource(In.Kernel));
  D.related(kernelLoc(*In.Baseline), "the baseline kernel");
  D.note("baseline: " + resourcesText(Base.Input) + "; " +
         std::to_string(B.BlocksPerSM) + " blocks per SM, limited by " +
         B.Limiter);
  D.note("this build: " + resourcesText(Head.Input) + "; " +
         std::to_string(H.BlocksPerSM) + " blocks per SM, limited by " +
         H.Limiter);
  D.hint(C.Stage, C.Hint);
  D.context("occupancy-fell").context(H.Limiter).context(H.Capability);
  return Error::success();
}

} // namespace gestell::nvidia
