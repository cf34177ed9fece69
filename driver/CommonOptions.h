//===- CommonOptions.h - Options more than one verb reads -----------------===//
//
// An option that several verbs read (--config, -j, -o, --nvdisasm, ...) is
// declared once, in CommonOptions.cpp, and attached to every verb that uses
// it (cl::sub of each), so it parses and is described the same in every
// verb's --help. An option only one verb reads, or one whose values or
// meaning differ by verb (--format, --opcodes), stays in that verb's file.
//
// The subcommands are function-local statics (Verb.h), so an option at
// namespace scope here may name a verb defined in another file without
// depending on the order of static initialisation across files.
//
// --help shows only gestell's own options (libLLVM registers hundreds),
// grouped under the categories below.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_DRIVER_COMMONOPTIONS_H
#define GESTELL_DRIVER_COMMONOPTIONS_H

#include "gestell/KernelView.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace gestell::driver {

/// Which checks run, the config, plugins, rule packs, gates.
llvm::cl::OptionCategory &checksCategory();
/// What is read and how: paths, tools, caches, the device, threads.
llvm::cl::OptionCategory &inputCategory();
/// What is written and where.
llvm::cl::OptionCategory &outputCategory();
/// The three above: the options --help shows.
llvm::ArrayRef<const llvm::cl::OptionCategory *> gestellCategories();

/// The shared options (check's are also the top level's, for
/// `gestell PATH...`).
namespace opts {
/// --config=FILE (check, stats, diff).
extern llvm::cl::opt<std::string> ConfigFile;
/// -j N (check, stats, diff, rules).
extern llvm::cl::opt<unsigned> Jobs;
/// -o FILE (check, stats, diff).
extern llvm::cl::opt<std::string> OutputFile;
/// --nvdisasm=PATH (check, stats, diff).
extern llvm::cl::opt<std::string> Nvdisasm;
/// --trace-cache=DIR... (check, stats, diff).
extern llvm::cl::list<std::string> TraceCaches;
/// --device=NAME (check, stats, diff).
extern llvm::cl::opt<std::string> Device;
/// --path-map=FROM=TO... (check, diff).
extern llvm::cl::list<std::string> PathMaps;
/// --checks=GLOBS (check, diff).
extern llvm::cl::opt<std::string> Checks;
/// --load=PLUGIN... (check, diff).
extern llvm::cl::list<std::string> Plugins;
/// --allow-config-plugins (check, diff).
extern llvm::cl::opt<bool> AllowConfigPlugins;
/// --keep-going (check, rules).
extern llvm::cl::opt<bool> KeepGoing;
} // namespace opts

/// --nvdisasm and --device as the SDK's analysis options; the error names
/// the option that is wrong.
llvm::Expected<AnalysisOptions> analysisFromOptions();

/// --trace-cache, each folder checked (checkTraceCaches).
llvm::Expected<std::vector<std::string>> traceCachesFromOptions();

/// libLLVM's --color (llvm/Support/WithColor.h), which check's text report
/// follows, is registered on the top level only: attach it to check too and
/// show it in --help. Called by main() before parsing.
void adoptColorOption();

} // namespace gestell::driver

#endif
