//===- PtxasRun.h - Re-running ptxas -v for the messages Triton drops -----===//
//
// ptxas says when it could not keep what the PTX asked for ("(C7515)
// Potential Performance Loss: wgmma.mma_async instructions are serialized
// ..."), but Triton does not keep its output. Running `ptxas -v` again on the
// cached .ptx for the kernel's target brings the messages back. The run
// writes only into a fresh temporary folder (removed afterwards), never into
// the bundle.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_PLUGINS_NVIDIA_PTXASRUN_H
#define GESTELL_PLUGINS_NVIDIA_PTXASRUN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace gestell::nvidia {

/// One "(C75xx) ..." message of ptxas: lost intent (wgmma serialized,
/// setmaxnreg ignored, warpgroup.arrive injected, ...).
struct PtxasMessage {
  std::string Code; ///< "C7515"
  std::string Text; ///< the message after the code, trimmed
  /// What it is about: "wgmma" (wgmma / warpgroup messages), "setmaxnreg",
  /// or "" for any other C75xx message.
  std::string Topic;
};

/// The C75xx messages in ptxas output (stdout and stderr together), in
/// order, each once.
std::vector<PtxasMessage> parsePtxasMessages(llvm::StringRef Output);

/// The ptxas a check option names: a path (containing '/') must be an
/// executable file; a bare name ("ptxas") is looked up on PATH.
llvm::Expected<std::string> findPtxas(llvm::StringRef Option);

/// Runs `Ptxas -v --gpu-name=Arch PtxPath -o <tmp>/out.cubin` in a new
/// temporary folder and returns its output (stdout then stderr). A failure
/// to run, a time-out or a non-zero exit is an error naming the PTX file.
llvm::Expected<std::string> runPtxas(llvm::StringRef Ptxas,
                                     llvm::StringRef PtxPath,
                                     llvm::StringRef Arch,
                                     unsigned TimeoutSeconds);

} // namespace gestell::nvidia

#endif
