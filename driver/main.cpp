//===- main.cpp - The gestell command -------------------------------------===//
#include "CommonOptions.h"
#include "Verb.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace gestell::driver {
namespace {
struct Entry {
  cl::SubCommand *Cmd;
  VerbMain Run;
  bool IsDefault;
};
SmallVector<Entry, 4> &verbs() {
  static SmallVector<Entry, 4> V;
  return V;
}
} // namespace

VerbRegistration::VerbRegistration(cl::SubCommand &Cmd, VerbMain Run,
                                   bool IsDefault) {
  verbs().push_back({&Cmd, Run, IsDefault});
}
} // namespace gestell::driver

static void printVersion(raw_ostream &OS) {
  OS << "gestell " << GESTELL_VERSION << "\n";
}

int main(int argc, char **argv) {
  using namespace gestell::driver;
  InitLLVM X(argc, argv);
  cl::SetVersionPrinter(printVersion);
  adoptColorOption();
  cl::HideUnrelatedOptions(gestellCategories());
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "gestell: static analysis of Triton's compiled output\n\n"
          "  gestell [check] [OPTIONS] PATH...   lint kernels (the default)\n"
          "  gestell stats [OPTIONS] PATH...     instruction counts per "
          "kernel\n"
          "  gestell diff [OPTIONS] STATE STATE...  compare builds\n"
          "  gestell rules test [OPTIONS] DIR... test rule packs on fixtures\n",
          &errs()))
    return ExitFailure;
  for (const auto &E : verbs())
    if (*E.Cmd) {
      // Options of another verb (those of `check` are also the top level's,
      // for `gestell PATH`) parse anywhere; a verb given one it does not
      // use says so instead of ignoring it.
      auto &Own = cl::getRegisteredOptions(*E.Cmd);
      for (const auto &[Name, O] :
           cl::getRegisteredOptions(cl::SubCommand::getTopLevel())) {
        if (!O->getNumOccurrences() || Own.count(Name) ||
            O->getFormattingFlag() == cl::Positional)
          continue;
        errs() << "gestell " << E.Cmd->getName() << ": "
               << (Name.size() == 1 ? "-" : "--") << Name
               << " is not an option of '" << E.Cmd->getName()
               << "' (see gestell " << E.Cmd->getName() << " --help)\n";
        return ExitFailure;
      }
      return E.Run();
    }
  for (const auto &E : verbs())
    if (E.IsDefault)
      return E.Run();
  errs() << "gestell: no verb given; see gestell --help\n";
  return ExitFailure;
}
