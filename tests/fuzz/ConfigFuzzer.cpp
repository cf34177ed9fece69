//===- ConfigFuzzer.cpp - Fuzz target: a .gestell.toml --------------------===//
//
// Reads the input as a config file (the reader takes a path, so the input
// is written to a file of this process first), then merges it with an
// empty command line and prints what --dump-config, --explain-config and
// --verify-config print.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "Config.h"

#include "gestell/CheckRegistry.h"

#include "llvm/Support/raw_ostream.h"

using namespace gestell;
using namespace gestell::driver;
using namespace llvm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Text = fuzz::asText(Data, Size);
  std::string Path = fuzz::writeInputFile(".gestell.toml", Text);
  Expected<std::shared_ptr<const ConfigFile>> File = readConfigFile(Path);
  if (!File) {
    fuzz::expectInputError(File.takeError(), ".gestell.toml", Text,
                           fuzz::Position::FileOrText);
    return 0;
  }
  for (const std::string &W : (*File)->Warnings)
    if (!StringRef(W).contains(".gestell.toml:"))
      fuzz::fail("a config warning without its file and line: " + W);
  CheckRegistry Registry;
  EffectiveConfig Cfg(*File, CommandLineConfig{}, Registry);
  dumpConfig(nulls(), Cfg, {});
  explainConfig(nulls(), Cfg, Registry);
  (void)verifyConfig(Cfg, Registry, {});
  for (StringRef Kernel : {"matmul_kernel", "", "attn_fwd"})
    (void)Cfg.excluded(Kernel);
  return 0;
}
