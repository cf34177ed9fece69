//===- SassCountsCache.h - SASS counts kept beside cached SASS ------------===//
//
// Internal to the SDK. A SASS listing that nvdisasm made into the tool's
// cache directory is a function of the cubin's bytes, and its counts are a
// function of that listing, of the family table and of the code that parses
// and counts it: so they are kept beside it, in a file named by the table's
// digest and the GNU build ID of libgestell (a rebuilt gestell never reads
// another build's counts), and a later run that only counts (gestell stats,
// gestell diff's summaries) does not parse the listing again. Never used for
// a .sass of the scanned folder: nothing is written there.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_LIB_SASSCOUNTSCACHE_H
#define GESTELL_LIB_SASSCOUNTSCACHE_H

#include "gestell/Families.h"
#include "gestell/InstructionCounts.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace gestell {

/// The file beside SassPath (a listing of the cache directory) that holds
/// its counts for table T made by this build of gestell; "" when this
/// build has no build ID (then nothing is cached).
std::string sassCountsPath(llvm::StringRef SassPath, const FamilyTable &T);

/// The counts kept by keepSassCounts, or none when there are none or the
/// file does not read as counts for T (then the listing is parsed, and the
/// file written again).
std::optional<StageCounts> readSassCounts(llvm::StringRef SassPath,
                                          const FamilyTable &T);

/// Keeps C, the counts of the listing SassPath for table T, for later runs:
/// written whole under a temporary name and renamed into place
/// (llvm::writeToOutput). A failure to write is ignored (the cache only
/// saves work).
void keepSassCounts(llvm::StringRef SassPath, const FamilyTable &T,
                    const StageCounts &C);

} // namespace gestell

#endif
