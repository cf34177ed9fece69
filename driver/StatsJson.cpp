//===- StatsJson.cpp - gestell stats --format=json ------------------------===//
//
// The contract of docs/stats-json.md, streamed with llvm::json::OStream so
// that keys keep the documented order and no kernel is held after it is
// written.
//
//===----------------------------------------------------------------------===//
#include "OccupancyReport.h"
#include "Stats.h"

#include "llvm/Support/JSON.h"

using namespace llvm;

namespace gestell::driver {
namespace {

class JsonWriter : public StatsWriter {
public:
  explicit JsonWriter(raw_ostream &OS) : OS(OS), J(OS, /*IndentSize=*/2) {}

  void begin(const FamilyTable &F) override {
    Families = &F;
    J.objectBegin();
    J.attribute("version", 1);
    J.attributeArray("families", [&] {
      for (const Family &Fam : F.families())
        J.value(Fam.Id);
      J.value("other");
    });
    J.attributeBegin("kernels");
    J.arrayBegin();
  }

  void add(const KernelStats &S) override {
    const Kernel &K = *S.K;
    const KernelMetadata *M = K.Meta ? &*K.Meta : nullptr;
    auto Str = [&](StringRef Key, StringRef V) {
      J.attribute(Key, V.empty() ? json::Value(nullptr) : json::Value(V));
    };
    auto Int = [&](StringRef Key, auto V) {
      J.attribute(Key, V ? json::Value(*V) : json::Value(nullptr));
    };
    auto Res = [&](auto Field) -> std::optional<uint64_t> {
      if (!S.Resources)
        return std::nullopt;
      return uint64_t((*S.Resources).*Field);
    };

    J.objectBegin();
    J.attribute("name", K.Name);
    J.attribute("dir", K.Dir);
    Str("hash", M ? StringRef(M->Hash) : "");
    Str("target", K.target());
    Str("arch", S.CubinTarget);
    Str("triton_version", M ? StringRef(M->TritonVersion) : "");
    Int("num_warps", M ? M->NumWarps : std::nullopt);
    Int("num_stages", M ? M->NumStages : std::nullopt);
    Int("num_ctas", M ? M->NumCtas : std::nullopt);
    Int("registers", Res(&CubinKernel::Registers));
    Int("stack", Res(&CubinKernel::Stack));
    Int("local", Res(&CubinKernel::Local));
    Int("shared_static", Res(&CubinKernel::SharedStatic));
    Int("shared_dynamic", M ? M->Shared : std::nullopt);
    Int("tmem_size", M ? M->TmemSize : std::nullopt);
    Int("max_registers",
        S.Resources ? S.Resources->MaxRegisters : std::nullopt);
    J.attributeBegin("occupancy");
    writeOccupancyJson(J, S.Occupancy);
    J.attributeEnd();
    Str("occupancy_unknown", S.Occupancy.Value ? "" : S.Occupancy.Unknown);
    J.attributeArray("stages_present", [&] {
      for (StringRef P : K.presentStages())
        J.value(P);
    });
    J.attributeArray("stages_missing", [&] {
      for (const auto &[Stage, Why] : S.Missing)
        J.value(Stage);
    });
    J.attributeArray("notes", [&] {
      for (const auto &[Stage, Why] : S.Missing)
        J.value("no " + Stage + ": " + Why);
      for (const std::string &N : S.Notes)
        J.value(N);
    });
    J.attributeArray("problems", [&] {
      for (const std::string &P : S.Problems)
        J.value(P);
    });
    Str("sass_file", S.SassFile);
    stage("ptx", S.Ptx);
    stage("sass", S.Sass);
    // From the .ttgir (null without one): the SDK writes both.
    J.attributeBegin("conversions");
    if (S.Ttgir)
      writeConversionsJson(J, *S.Ttgir);
    else
      J.value(nullptr);
    J.attributeEnd();
    J.attributeBegin("ttgir");
    if (S.Ttgir)
      writeTtgirJson(J, *S.Ttgir);
    else
      J.value(nullptr);
    J.attributeEnd();
    J.objectEnd();
  }

  void end(ArrayRef<DiscoveryProblem> PathProblems) override {
    J.arrayEnd();
    J.attributeEnd();
    J.attributeArray("problems", [&] {
      for (const DiscoveryProblem &P : PathProblems)
        if (P.Severity != Level::Remark) // notes are on stderr only
          J.value(P.where() + ": " + P.Message);
    });
    J.objectEnd();
    J.flush();
    OS << "\n"; // a trailing newline, like every text file
  }

private:
  void count(StringRef Key, const Count &C) {
    J.attributeObject(Key, [&] {
      J.attribute("total", C.Total);
      J.attribute("in_loops", C.InLoops);
    });
  }

  void stage(StringRef Key, const std::optional<StageCounts> &C) {
    if (!C) {
      J.attribute(Key, nullptr);
      return;
    }
    J.attributeObject(Key, [&] {
      J.attribute("functions", C->Functions);
      J.attribute("loops", C->Loops);
      count("instructions", C->Instructions);
      if (C->Of == Isa::SASS)
        J.attribute("never_executed", C->NeverExecuted);
      J.attributeObject("families", [&] {
        for (unsigned I = 0; I < C->Families.size(); ++I)
          count(Families->idOf(I), C->Families[I]);
        count("other", C->Other);
      });
      J.attributeObject("opcodes", [&] {
        for (const OpcodeCount &E : C->Opcodes) // sorted by opcode
          count(E.Opcode, E.N);
      });
    });
  }

  raw_ostream &OS;
  json::OStream J;
  const FamilyTable *Families = nullptr;
};

} // namespace

std::unique_ptr<StatsWriter> makeJsonStatsWriter(raw_ostream &OS) {
  return std::make_unique<JsonWriter>(OS);
}

} // namespace gestell::driver
