//===- StatsText.cpp - gestell stats --format=text ------------------------===//
//
// For people: per kernel a header (where, what target, resources, stages),
// a family table with PTX and SASS side by side, and the most frequent
// opcodes of each stage.
//
//   matmul  /cache/PUMN3FJ.../
//     hash ca43a190ad3d  cuda:90 (sm_90a)  4 warps  3 stages  triton 3.6.0
//     registers 168  stack 0  local 0  shared 1024 static + 98304 dynamic
//     occupancy 2 blocks/SM, 8 warps/SM (12.5%) on compute capability 9.0,
//     limited by shared memory stages: cubin json ptx source ttgir ttir
//     missing: sass
//
//     family      ptx  in loops     sass  in loops
//     tensor       16        16        -         -
//     ...
//
//===----------------------------------------------------------------------===//
#include "OccupancyReport.h"
#include "Stats.h"

#include "llvm/Support/Format.h"

#include <algorithm>

using namespace llvm;

namespace gestell::driver {
namespace {

class TextWriter : public StatsWriter {
public:
  TextWriter(raw_ostream &OS, StatsOutputOptions Opts) : OS(OS), Opts(Opts) {}

  void begin(const FamilyTable &F) override { Families = &F; }

  void add(const KernelStats &S) override {
    const Kernel &K = *S.K;
    if (Written++)
      OS << "\n";
    OS << K.Name << "  " << K.Dir << "\n";
    header(S);
    familyTable(S);
    opcodes("ptx", S.Ptx);
    opcodes("sass", S.Sass);
    for (const std::string &N : S.Notes)
      OS << "  note: " << N << "\n";
    for (const std::string &P : S.Problems)
      OS << "  problem: " << P << "\n";
  }

  void end(ArrayRef<DiscoveryProblem> PathProblems) override {
    for (const DiscoveryProblem &P : PathProblems)
      if (P.Severity != Level::Remark) // notes are on stderr only
        OS << "problem: " << P.where() << ": " << P.Message << "\n";
    if (!Written)
      OS << "no kernels\n";
  }

private:
  void header(const KernelStats &S) {
    const Kernel &K = *S.K;
    OS << " ";
    if (const KernelMetadata *M = K.Meta ? &*K.Meta : nullptr) {
      if (!M->Hash.empty())
        OS << " hash " << StringRef(M->Hash).take_front(12);
      if (!M->Target.empty())
        OS << "  " << M->Target;
    }
    if (!S.CubinTarget.empty())
      OS << " (" << S.CubinTarget << ")";
    if (const KernelMetadata *M = K.Meta ? &*K.Meta : nullptr) {
      if (M->NumWarps)
        OS << "  " << *M->NumWarps << " warps";
      if (M->NumStages)
        OS << "  " << *M->NumStages << " stages";
      if (!M->TritonVersion.empty())
        OS << "  triton " << M->TritonVersion;
    }
    OS << "\n";
    if (S.Resources) {
      const CubinKernel &R = *S.Resources;
      OS << "  registers " << R.Registers << "  stack " << R.Stack << "  local "
         << R.Local << "  shared " << R.SharedStatic << " static";
      if (K.Meta && K.Meta->Shared)
        OS << " + " << *K.Meta->Shared << " dynamic";
      if (K.Meta && K.Meta->TmemSize && *K.Meta->TmemSize)
        OS << "  tmem " << *K.Meta->TmemSize;
      OS << "\n";
    }
    OS << "  occupancy " << occupancyText(S.Occupancy) << "\n";
    OS << "  stages:";
    for (StringRef P : K.presentStages())
      OS << " " << P;
    if (!S.Missing.empty()) {
      OS << "  missing:";
      for (const auto &[Stage, Why] : S.Missing)
        OS << " " << Stage;
    }
    OS << "\n";
  }

  static void cell(raw_ostream &OS, const std::optional<StageCounts> &C,
                   const Count *N) {
    if (!C)
      OS << format("%10s%10s", "-", "-");
    else
      OS << format("%10llu%10llu", (unsigned long long)N->Total,
                   (unsigned long long)N->InLoops);
  }

  void familyTable(const KernelStats &S) {
    if (!S.Ptx && !S.Sass)
      return;
    OS << "\n"
       << format("  %-10s%10s%10s%10s%10s\n", "family", "ptx", "in loops",
                 "sass", "in loops");
    auto Row = [&](StringRef Name, auto Pick) {
      OS << format("  %-10s", Name.str().c_str());
      cell(OS, S.Ptx, S.Ptx ? &Pick(*S.Ptx) : nullptr);
      cell(OS, S.Sass, S.Sass ? &Pick(*S.Sass) : nullptr);
      OS << "\n";
    };
    for (unsigned I = 0; I < Families->families().size(); ++I)
      Row(Families->idOf(I),
          [I](const StageCounts &C) -> const Count & { return C.Families[I]; });
    Row("other", [](const StageCounts &C) -> const Count & { return C.Other; });
    Row("total",
        [](const StageCounts &C) -> const Count & { return C.Instructions; });
    if (S.Sass)
      OS << "  never executed (@!PT/@!UPT): " << S.Sass->NeverExecuted << "\n";
  }

  void opcodes(StringRef Stage, const std::optional<StageCounts> &C) {
    if (!C || C->Opcodes.empty())
      return;
    std::vector<OpcodeCount> Ops(C->Opcodes.begin(), C->Opcodes.end());
    // Most frequent first; ties by name (the counts are by name).
    std::stable_sort(Ops.begin(), Ops.end(), [](const auto &A, const auto &B) {
      return A.N.Total > B.N.Total;
    });
    size_t Shown = Opts.TopOpcodes
                       ? std::min<size_t>(Opts.TopOpcodes, Ops.size())
                       : Ops.size();
    size_t Width = 6;
    for (size_t I = 0; I < Shown; ++I)
      Width = std::max(Width, Ops[I].Opcode.size());
    OS << "\n  " << Stage << " opcodes";
    if (Shown < Ops.size())
      OS << " (" << Shown << " most frequent of " << Ops.size() << ")";
    OS << "\n";
    for (size_t I = 0; I < Shown; ++I) {
      const auto &[Op, N] = Ops[I];
      OS << "    " << Op;
      OS.indent(Width - Op.size());
      OS << format("%10llu%10llu", (unsigned long long)N.Total,
                   (unsigned long long)N.InLoops)
         << "  " << Families->idOf(Families->classify(C->Of, Op)) << "\n";
    }
  }

  raw_ostream &OS;
  StatsOutputOptions Opts;
  const FamilyTable *Families = nullptr;
  unsigned Written = 0;
};

} // namespace

std::unique_ptr<StatsWriter> makeTextStatsWriter(raw_ostream &OS,
                                                 StatsOutputOptions Opts) {
  return std::make_unique<TextWriter>(OS, Opts);
}

} // namespace gestell::driver
