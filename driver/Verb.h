//===- Verb.h - The verbs of the gestell command --------------------------===//
//
// Each verb (check, stats, diff, rules) lives in its own file: it defines
// its llvm::cl::SubCommand (the accessor below, a function-local static so
// that options in any file may name it), its own options with
// cl::sub(thatCommand()), and registers itself here with a static
// VerbRegistration. Options several verbs read are declared once
// (CommonOptions.h). main() parses the command line once and runs the verb
// that was selected. `gestell PATH...` with no verb is `gestell check
// PATH...` (the verb registered as the default).
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_DRIVER_VERB_H
#define GESTELL_DRIVER_VERB_H

#include "llvm/Support/CommandLine.h"

namespace gestell::driver {

/// Exit statuses shared by every verb.
enum ExitStatus : int {
  ExitOk = 0,       ///< job done, nothing at error level (or gate not held)
  ExitFindings = 1, ///< error-level results, or the --fail-on gate held
  ExitFailure = 2,  ///< the tool could not do its job
};

/// The verbs' subcommands, each made on first use (CheckVerb.cpp,
/// Stats.cpp, Diff.cpp, RulesVerb.cpp).
llvm::cl::SubCommand &checkCommand();
llvm::cl::SubCommand &statsCommand();
llvm::cl::SubCommand &diffCommand();
llvm::cl::SubCommand &rulesCommand();

using VerbMain = int (*)();

struct VerbRegistration {
  /// Registers Run for Cmd. With IsDefault, Run also serves the top-level
  /// command (no verb given); the verb's options must then also be declared
  /// with cl::sub(cl::SubCommand::getTopLevel()).
  VerbRegistration(llvm::cl::SubCommand &Cmd, VerbMain Run,
                   bool IsDefault = false);
};

} // namespace gestell::driver

#endif
