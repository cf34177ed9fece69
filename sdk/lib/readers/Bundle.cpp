//===- Bundle.cpp - Finding kernels in caches, dump dirs and folders ------===//
#include "gestell/Bundle.h"
#include "gestell/Error.h"
#include "gestell/Input.h"
#include "gestell/Sass.h"
#include "gestell/Trace.h"
#include "readers/JsonInput.h"
#include "readers/trace/TraceStore.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>

#include <dirent.h>
#include <sys/stat.h>

using namespace llvm;

namespace gestell {

namespace {
struct StageInfo {
  Stage S;
  StringRef Name;
  StringRef Suffix;
};
// Longest suffixes first so "x.cuobjdump.sass" is not taken for "x.cuobjdump".
constexpr StageInfo StageTable[] = {
    {Stage::SASSAlt, "sass-alt", ".cuobjdump.sass"},
    {Stage::ResUsage, "res-usage", ".res-usage.txt"},
    {Stage::Source, "source", ".source"},
    {Stage::TTGIR, "ttgir", ".ttgir"},
    {Stage::Cubin, "cubin", ".cubin"},
    {Stage::TTIR, "ttir", ".ttir"},
    {Stage::LLIR, "llir", ".llir"},
    {Stage::SASS, "sass", ".sass"},
    {Stage::Metadata, "json", ".json"},
    {Stage::PTX, "ptx", ".ptx"},
};

const StageInfo &info(Stage S) {
  for (const StageInfo &I : StageTable)
    if (I.S == S)
      return I;
  llvm_unreachable("stage missing from StageTable");
}

/// Splits a file name into (stem, stage) when it is an artifact we know.
std::optional<std::pair<StringRef, Stage>> classify(StringRef FileName) {
  for (const StageInfo &I : StageTable)
    if (FileName.size() > I.Suffix.size() && FileName.ends_with(I.Suffix))
      return std::make_pair(FileName.drop_back(I.Suffix.size()), I.S);
  return std::nullopt;
}

constexpr StringRef GroupPrefix = "__grp__";
constexpr unsigned MaxDepth = 32;

/// "GPUTarget(backend='cuda', arch=100, warp_size=32)" -> "cuda:100".
std::string targetFromRepr(StringRef Repr) {
  auto Field = [&](StringRef Key) -> StringRef {
    size_t P = Repr.find(Key);
    if (P == StringRef::npos)
      return {};
    StringRef Rest = Repr.drop_front(P + Key.size()).ltrim(" ='\"");
    return Rest.take_until(
        [](char C) { return C == '\'' || C == '"' || C == ',' || C == ')'; });
  };
  StringRef Backend = Field("backend"), Arch = Field("arch");
  if (Backend.empty() || Arch.empty())
    return {};
  return (Backend + ":" + Arch).str();
}

/// What reading one folder gave: its identity and its entries, each with
/// the type the listing gives (links not followed).
struct Listing {
  struct Entry {
    std::string Path;
    uint32_t NameAt; ///< where the file name starts in Path
    sys::fs::file_type Type;
    StringRef name() const { return StringRef(Path).drop_front(NameAt); }
  };
  std::error_code StatusError; ///< the folder could not be looked at
  sys::fs::UniqueID ID;
  std::vector<Entry> Entries;
  std::error_code ListError; ///< the listing stopped early
};

/// The type of an entry from its d_type; DT_UNKNOWN (the file system does
/// not say: some XFS, NFS) costs an lstat.
sys::fs::file_type typeOf(const std::string &Path, unsigned char DType) {
  using sys::fs::file_type;
  static constexpr std::pair<unsigned char, file_type> Known[] = {
      {DT_REG, file_type::regular_file}, {DT_DIR, file_type::directory_file},
      {DT_LNK, file_type::symlink_file}, {DT_FIFO, file_type::fifo_file},
      {DT_SOCK, file_type::socket_file}, {DT_CHR, file_type::character_file},
      {DT_BLK, file_type::block_file}};
  for (auto [D, T] : Known)
    if (D == DType)
      return T;
  sys::fs::file_status St;
  if (sys::fs::status(Path, St, /*Follow=*/false))
    return file_type::status_error;
  return St.type();
}

/// One folder's listing with POSIX opendir: the folder's identity comes
/// from the open descriptor (no second lookup of its path) and each entry's
/// path is the folder's plus its name (LLVM's directory_iterator rebuilds
/// it with path::append, most of discovery's time on a large cache).
Listing listFolder(const std::string &Dir) {
  Listing L;
  DIR *D = ::opendir(Dir.c_str());
  if (!D) {
    // Tell a folder that cannot be looked at from one that cannot be
    // listed (no read permission), as sys::fs::status would.
    std::error_code OpenError(errno, std::generic_category());
    sys::fs::file_status St;
    if ((L.StatusError = sys::fs::status(Dir, St)))
      return L;
    L.ID = St.getUniqueID();
    L.ListError = OpenError;
    return L;
  }
  scope_exit Close([D] { ::closedir(D); });
  struct stat St;
  if (::fstat(::dirfd(D), &St) != 0) {
    L.StatusError = std::error_code(errno, std::generic_category());
    return L;
  }
  L.ID = sys::fs::UniqueID(St.st_dev, St.st_ino);
  std::string Prefix = Dir;
  if (Prefix.empty() || Prefix.back() != '/')
    Prefix += '/';
  for (;;) {
    errno = 0;
    const struct dirent *E = ::readdir(D);
    if (!E) {
      if (errno)
        L.ListError = std::error_code(errno, std::generic_category());
      break;
    }
    StringRef Name(E->d_name);
    if (Name == "." || Name == "..")
      continue;
    std::string Path = Prefix + Name.str();
    sys::fs::file_type Type = typeOf(Path, E->d_type);
    L.Entries.push_back({std::move(Path), uint32_t(Prefix.size()), Type});
  }
  return L;
}

class Walker {
public:
  Discovery Result;

  void addPath(StringRef Given) {
    SmallString<256> Abs(Given);
    sys::fs::make_absolute(Abs);
    sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
    sys::fs::file_status St;
    if (std::error_code EC = sys::fs::status(Abs, St)) {
      Result.Problems.push_back({Given.str(), "cannot read: " + EC.message()});
      return;
    }
    std::string Real = realPath(Abs);
    if (St.type() == sys::fs::file_type::directory_file) {
      Roots.push_back(Real);
      walkDir(Abs, 0);
      return;
    }
    Roots.push_back(std::string(sys::path::parent_path(Real)));
    addSingleFile(Given, Abs);
  }

  void finish(const DiscoveryOptions &Opts) {
    for (auto &[Key, K] : Kernels) {
      // A kernel Triton compiled from an IR file (triton.compile("k.ttir"))
      // has its files named after the IR symbol, "@k.ptx", while its .json,
      // PTX entry and cubin function say "k": that is its name, unless files
      // "k.*" beside them are another kernel of that name.
      StringRef Stem = Key.second;
      if (Stem.size() > 1 && Stem.front() == '@' &&
          !Kernels.count({Key.first, Stem.drop_front().str()}))
        K.Name = Stem.drop_front().str();
      K.MetadataDeferred = true;
      K.PathText.shrink_to_fit(); // appended stage by stage; kept all run
      if (!Opts.DeferMetadata)
        loadKernelMetadata(K);
      Result.Kernels.push_back(std::move(K));
    }
    if (!Traces.empty())
      readTraces(Opts);
    std::stable_sort(Result.Kernels.begin(), Result.Kernels.end(), kernelLess);
  }

private:
  std::map<std::pair<std::string, std::string>, Kernel> Kernels;
  std::set<sys::fs::UniqueID> Visited;
  /// Real paths of the scanned folders (of a file: its folder).
  std::vector<std::string> Roots;
  /// TritonParse traces: absolute path -> named on the command line (else
  /// found in a folder).
  std::map<std::string, bool> Traces;

  /// The kernels of the traces, in path order, each compilation (by its
  /// metadata hash) once. A kernel of a Triton cache whose cubin a trace
  /// kernel reads is the same compilation: the trace's copy, which has the
  /// same stages and its SASS besides, stays.
  void readTraces(const DiscoveryOptions &Opts) {
    trace::Trust T;
    T.Roots = Roots;
    for (const std::string &D : Opts.AlsoScanned)
      if (std::string R = realPath(D); !R.empty())
        T.Roots.push_back(
            sys::fs::is_directory(R) ? R : sys::path::parent_path(R).str());
    for (const std::string &D : Opts.TraceCaches)
      if (std::string R = realPath(D); !R.empty())
        T.Caches.push_back(std::move(R));
    std::set<std::string> Seen;
    std::vector<Kernel> FromTraces;
    std::vector<trace::TraceFile> Files;
    for (const auto &[Path, Named] : Traces)
      Files.push_back({Path, Named});
    trace::scanTraces(Files, T, Seen, FromTraces, Result.Problems);
    std::set<std::string> TraceCubins;
    for (const Kernel &K : FromTraces)
      if (K.has(Stage::Cubin))
        TraceCubins.insert(K.path(Stage::Cubin).str());
    if (!TraceCubins.empty())
      std::erase_if(Result.Kernels, [&](const Kernel &K) {
        return K.has(Stage::Cubin) &&
               TraceCubins.count(realPath(K.path(Stage::Cubin)));
      });
    std::move(FromTraces.begin(), FromTraces.end(),
              std::back_inserter(Result.Kernels));
  }

  /// Whether what Link (a link) names stays inside the scanned folders
  /// once every link is resolved; a link out is reported once.
  bool linkInsideRoots(StringRef Link) {
    std::string Real = realPath(Link);
    for (const std::string &R : Roots)
      if (!R.empty() && pathIsWithin(Real, R))
        return true;
    Result.Problems.push_back(
        {Link.str(),
         "a link to " + Real +
             ", outside the scanned folders: not followed (name that path "
             "on the command line to scan it)",
         Level::Warning});
    return false;
  }

  /// The kernel whose files in Dir have the stem Stem.
  Kernel &kernel(StringRef Dir, StringRef Stem) {
    Kernel &K = Kernels[{Dir.str(), Stem.str()}];
    if (K.Name.empty()) {
      K.Name = Stem.str();
      K.Dir = Dir.str();
    }
    return K;
  }

  void addSingleFile(StringRef Given, StringRef Abs) {
    StringRef FileName = sys::path::filename(Abs);
    StringRef Dir = sys::path::parent_path(Abs);
    if (isTraceFileName(FileName)) {
      Traces[Abs.str()] = true;
      return;
    }
    if (FileName.starts_with(GroupPrefix) && FileName.ends_with(".json")) {
      // A group file stands for its kernel: take the files beside it.
      walkDir(Dir, MaxDepth);
      return;
    }
    auto C = classify(FileName);
    if (!C) {
      Result.Problems.push_back(
          {Given.str(), "not a Triton artifact (expected a folder or a file "
                        "ending in .ttir, .ttgir, .llir, .ptx, .cubin, .sass, "
                        ".json, .source, or a TritonParse trace: .ndjson, "
                        ".ndjson.gz)"});
      return;
    }
    Kernel &K = kernel(Dir, C->first);
    K.setPath(C->second, Abs);
  }

  void walkDir(StringRef Dir, unsigned Depth) {
    const Listing L = listFolder(Dir.str());
    if (L.StatusError) {
      Result.Problems.push_back(
          {Dir.str(), "cannot read: " + L.StatusError.message()});
      return;
    }
    if (!Visited.insert(L.ID).second)
      return; // symlink loop or a folder reached twice
    std::vector<std::string> SubDirs;
    std::vector<std::string> GroupNames;
    // Not following links. The kernels of this folder by name: each file
    // finds its kernel without building the key of Kernels.
    StringMap<Kernel *> Here;
    for (const Listing::Entry &Entry : L.Entries) {
      StringRef Path = Entry.Path;
      StringRef FileName = Entry.name();
      std::optional<std::pair<StringRef, Stage>> C = classify(FileName);
      bool Trace = !C && isTraceFileName(FileName);
      bool Ours = C || Trace;
      sys::fs::file_type Type = Entry.Type;
      bool Link = Type == sys::fs::file_type::symlink_file;
      if (Link) { // only a link costs a look at what it names
        sys::fs::file_status Target;
        Type = sys::fs::status(Path, Target) ? sys::fs::file_type::status_error
                                             : Target.type();
      }
      if (Type == sys::fs::file_type::status_error ||
          Type == sys::fs::file_type::type_unknown) {
        // Broken symlink or unreadable entry: note it if it looks like ours.
        if (Ours)
          Result.Problems.push_back({Path.str(), "cannot read (broken link?)"});
        continue;
      }
      if (Link && !linkInsideRoots(Path))
        continue;
      if (Type == sys::fs::file_type::directory_file) {
        if (Ours)
          Result.Problems.push_back(
              {Path.str(), "is a folder, not a file: not read as an artifact",
               Level::Remark});
        SubDirs.push_back(Path.str());
        continue;
      }
      if (Type != sys::fs::file_type::regular_file) {
        if (Ours)
          Result.Problems.push_back(
              {Path.str(),
               "is not a regular file (a FIFO, socket or device): not read",
               Level::Remark});
        continue;
      }
      if (FileName.starts_with(GroupPrefix) && FileName.ends_with(".json")) {
        // __grp__<name>.json lists absolute paths from the machine that wrote
        // it; we never follow them. It only tells us a kernel name to expect.
        GroupNames.push_back(
            FileName.drop_front(GroupPrefix.size()).drop_back(5).str());
        continue;
      }
      if (Trace) {
        Traces.try_emplace(Path.str(), false); // named wins
        continue;
      }
      if (!C)
        continue; // foreign file (launcher .so, notes, ...)
      Kernel *&K = Here[C->first];
      if (!K)
        K = &kernel(Dir, C->first);
      K->setPath(C->second, Path);
    }
    if (L.ListError)
      Result.Problems.push_back(
          {Dir.str(), "cannot list folder: " + L.ListError.message()});
    for (const std::string &G : GroupNames) {
      auto It = Kernels.find({Dir.str(), G});
      if (It == Kernels.end())
        Result.Problems.push_back(
            {Dir.str(), "__grp__" + G + ".json names kernel '" + G +
                            "' but no artifact of it is in this folder"});
    }
    dropNonKernels(Dir);
    if (Depth >= MaxDepth)
      return;
    std::sort(SubDirs.begin(), SubDirs.end());
    for (const std::string &Sub : SubDirs)
      walkDir(Sub, Depth + 1);
  }

  /// A stem whose only files have extensions other tools use too (a
  /// project's .json, a Sass stylesheet, an apt or data `.source`, another
  /// compiler's `.llir`) is a kernel only when its .json reads as Triton's
  /// metadata or its .sass as a disassembly listing. A lone .source or
  /// .llir would be a kernel with nothing to check: gestell never reads a
  /// .llir, and a .source only beside the stages it is compared with.
  void dropNonKernels(StringRef Dir) {
    for (auto It = Kernels.lower_bound({Dir.str(), ""});
         It != Kernels.end() && It->first.first == Dir;) {
      Kernel &K = It->second;
      bool OnlyShared = true;
      for (unsigned I = 0; I < NumStages; ++I) {
        Stage S = static_cast<Stage>(I);
        if (S != Stage::Metadata && S != Stage::SASS && S != Stage::Source &&
            S != Stage::LLIR && K.has(S))
          OnlyShared = false;
      }
      if (OnlyShared &&
          !(K.has(Stage::Metadata) &&
            looksLikeTritonMetadata(K.path(Stage::Metadata))) &&
          !(K.has(Stage::SASS) && looksLikeSass(K.path(Stage::SASS))))
        It = Kernels.erase(It);
      else
        ++It;
    }
  }

  /// A listing in one of the forms parseSass reads (a truncated or
  /// malformed one too: parsing it then says where); a stylesheet is none.
  static bool looksLikeSass(StringRef Path) {
    auto Buf = openArtifact(Path, Content::Text);
    if (!Buf) {
      consumeError(Buf.takeError());
      return false;
    }
    return detectSassFormat((*Buf)->getBuffer()).has_value();
  }

  /// Triton's metadata is an object that names the Triton that wrote it or
  /// its target as {"backend": ...}. A project's JSON that only mentions
  /// "target" (a tsconfig.json, a JSON schema, a list of records) is not,
  /// nor is text that does not parse, nor a file above 1 MiB (a dataset:
  /// Triton's are a few KiB, and a lone one has nothing to check anyway),
  /// which is not parsed.
  static bool looksLikeTritonMetadata(StringRef Path) {
    uint64_t Size = 0;
    if (sys::fs::file_size(Path, Size) || Size > (1u << 20))
      return false;
    auto Buf = openArtifact(Path, Content::Text);
    if (!Buf) {
      consumeError(Buf.takeError());
      return false;
    }
    StringRef Text = (*Buf)->getBuffer();
    if (!Text.contains("\"triton_version\"") && !Text.contains("\"target\""))
      return false;
    Expected<json::Value> V = json::parse(Text);
    if (!V) {
      consumeError(V.takeError());
      return false;
    }
    const json::Object *O = V->getAsObject();
    if (!O)
      return false;
    if (O->getString("triton_version"))
      return true;
    const json::Object *T = O->getObject("target");
    return T && T->getString("backend");
  }
};
} // namespace

bool hasErrors(const Discovery &D) {
  return any_of(D.Problems, [](const DiscoveryProblem &P) {
    return P.Severity == Level::Error;
  });
}

StringRef stageName(Stage S) { return info(S).Name; }
StringRef stageSuffix(Stage S) { return info(S).Suffix; }

std::optional<Stage> stageFromName(StringRef Name) {
  for (const StageInfo &I : StageTable)
    if (I.Name == Name)
      return I.S;
  return std::nullopt;
}

std::vector<StringRef> Kernel::presentStages() const {
  std::vector<StringRef> Out;
  for (unsigned I = 0; I < NumStages; ++I)
    if (has(static_cast<Stage>(I)))
      Out.push_back(stageName(static_cast<Stage>(I)));
  return Out;
}

std::optional<KernelMetadata> metadataFromTtgir(StringRef Path) {
  auto Buf = openArtifact(Path, Content::Text);
  if (!Buf) {
    consumeError(Buf.takeError());
    return std::nullopt;
  }
  return metadataFromTtgirText((*Buf)->getBuffer());
}

std::optional<KernelMetadata> metadataFromTtgirText(StringRef Text) {
  // The module line follows the #alias lines; it is the first line that
  // starts with "module attributes {".
  size_t At = Text.starts_with("module attributes {")
                  ? 0
                  : Text.find("\nmodule attributes {");
  if (At == StringRef::npos)
    return std::nullopt;
  StringRef Line = Text.drop_front(At).ltrim('\n').split('\n').first;
  KernelMetadata M;
  M.FromTtgir = true;
  auto Int = [&](StringRef Key) -> std::optional<int64_t> {
    size_t P = Line.find(("\"" + Key + "\" = ").str());
    if (P == StringRef::npos)
      return std::nullopt;
    StringRef V = Line.drop_front(P + Key.size() + 5);
    int64_t N;
    if (V.consumeInteger(10, N))
      return std::nullopt;
    return N;
  };
  M.NumWarps = Int("ttg.num-warps");
  M.NumCtas = Int("ttg.num-ctas");
  M.WarpSize = Int("ttg.threads-per-warp");
  // The final TTGIR (after shared-memory allocation) also says how much
  // dynamic shared and tensor memory the kernel takes; unquoted keys.
  auto Bare = [&](StringRef Key) -> std::optional<int64_t> {
    size_t P = Line.find((" " + Key + " = ").str());
    if (P == StringRef::npos)
      P = Line.find(("{" + Key + " = ").str());
    if (P == StringRef::npos)
      return std::nullopt;
    StringRef V = Line.drop_front(P + Key.size() + 4);
    int64_t N;
    if (V.consumeInteger(10, N) || N < 0)
      return std::nullopt;
    return N;
  };
  M.Shared = Bare("ttg.shared");
  M.TmemSize = Bare("ttg.tensor_memory_size");
  size_t T = Line.find("ttg.target = \"");
  if (T != StringRef::npos)
    M.Target = Line.drop_front(T + strlen("ttg.target = \""))
                   .take_until([](char C) { return C == '"'; })
                   .str();
  return M;
}

StringRef Kernel::target() const {
  return Meta ? StringRef(Meta->Target) : StringRef();
}

Expected<KernelMetadata> readKernelMetadata(StringRef Path) {
  auto Buf = openArtifact(Path, Content::Text);
  if (!Buf)
    return Buf.takeError();
  return parseKernelMetadata((*Buf)->getBuffer(), Path);
}

Expected<KernelMetadata> parseKernelMetadata(StringRef Text, StringRef Path) {
  if (std::optional<json::Object> Read = scanMetadataMembers(Text))
    return kernelMetadataFromJson(*Read);
  Expected<json::Value> V = parseJsonInput(Text, Path, "JSON metadata");
  if (!V)
    return V.takeError();
  const json::Object *O = V->getAsObject();
  if (!O)
    return inputError(Path, "metadata is not a JSON object");
  return kernelMetadataFromJson(*O);
}

// A member read here is also named in MetadataScan.cpp (isReadMember).
KernelMetadata kernelMetadataFromJson(const json::Object &Obj) {
  const json::Object *O = &Obj;
  KernelMetadata M;
  auto Str = [&](StringRef Key) -> std::string {
    if (auto S = O->getString(Key))
      return S->str();
    return {};
  };
  M.Name = Str("name");
  M.Hash = Str("hash");
  M.Arch = Str("arch");
  M.TritonVersion = Str("triton_version");
  M.NumWarps = O->getInteger("num_warps");
  M.NumCtas = O->getInteger("num_ctas");
  M.NumStages = O->getInteger("num_stages");
  M.WarpSize = O->getInteger("warp_size");
  M.Shared = O->getInteger("shared");
  M.TmemSize = O->getInteger("tmem_size");
  M.MaxNReg = O->getInteger("maxnreg");
  // {"(4,)": 1024}: TritonParse keys each constexpr by its argument path.
  if (const json::Object *C = O->getObject("src_constants")) {
    std::vector<std::pair<std::string, std::string>> Parts;
    for (const auto &[K, V] : *C) {
      std::string Index = StringRef(K).trim("() ,").str();
      std::string Value;
      raw_string_ostream OS(Value);
      OS << V;
      Parts.push_back({Index, Value});
    }
    llvm::sort(Parts);
    for (const auto &[I, V] : Parts)
      M.Constants += (M.Constants.empty() ? "" : ", ") + I + "=" + V;
  }
  if (const json::Value *T = O->get("target")) {
    if (auto S = T->getAsString()) {
      M.Target = targetFromRepr(*S);
    } else if (const json::Object *TO = T->getAsObject()) {
      // CUDA gives the arch as a number (90), HIP as a name ("gfx942").
      auto B = TO->getString("backend");
      std::string Arch;
      if (auto A = TO->getInteger("arch"))
        Arch = std::to_string(*A);
      else if (auto A = TO->getString("arch"))
        Arch = A->str();
      if (B && !Arch.empty())
        M.Target = (*B + ":" + Arch).str();
    }
  }
  if (M.Target.empty() && !M.Arch.empty() &&
      StringRef(M.Arch).starts_with("sm"))
    M.Target = ("cuda:" + StringRef(M.Arch).drop_front(2)).str();
  return M;
}

Discovery discoverKernels(ArrayRef<std::string> Paths) {
  return discoverKernels(Paths, DiscoveryOptions());
}

Discovery discoverKernels(ArrayRef<std::string> Paths,
                          const DiscoveryOptions &Opts) {
  Walker W;
  for (const std::string &P : Paths)
    W.addPath(P);
  W.finish(Opts);
  // Kept for the whole run (diff keeps every state's): no spare capacity.
  W.Result.Kernels.shrink_to_fit();
  return std::move(W.Result);
}

bool kernelLess(const Kernel &A, const Kernel &B) {
  StringRef FA = A.Trace ? StringRef(A.Trace->Trace) : StringRef(A.Dir);
  StringRef FB = B.Trace ? StringRef(B.Trace->Trace) : StringRef(B.Dir);
  if (FA != FB)
    return FA < FB;
  unsigned LA = A.Trace ? A.Trace->Line : 0, LB = B.Trace ? B.Trace->Line : 0;
  if (LA != LB)
    return LA < LB;
  if (A.Dir != B.Dir)
    return A.Dir < B.Dir;
  return A.Name < B.Name;
}

std::string kernelIdentity(const Kernel &K) {
  if (K.Trace && K.Meta && !K.Meta->Hash.empty())
    return "trace hash " + K.Meta->Hash;
  return K.Dir + "\n" + K.Name;
}

std::string DiscoveryProblem::where() const {
  if (!Line)
    return Path;
  return Path + ":" + std::to_string(Line) +
         (Column ? ":" + std::to_string(Column) : std::string());
}

std::string Kernel::absentWhy(Stage S, StringRef Default) const {
  for (const auto &[Of, Why] : AbsentWhy)
    if (Of == S && !Why.empty())
      return Why;
  return Default.str();
}

void Kernel::setPath(Stage S, StringRef Path) {
  auto &Span = PathSpans[static_cast<unsigned>(S)];
  if (!Span.second && !Path.empty()) { // a new stage: appended
    Span = {uint32_t(PathText.size()), uint32_t(Path.size())};
    PathText += Path;
    return;
  }
  // The text again without S's old path: no dead bytes stay behind.
  std::string Text;
  std::array<std::pair<uint32_t, uint32_t>, NumStages> Spans{};
  for (unsigned I = 0; I < NumStages; ++I) {
    StringRef P = I == static_cast<unsigned>(S) ? Path : path(Stage(I));
    if (P.empty())
      continue;
    Spans[I] = {uint32_t(Text.size()), uint32_t(P.size())};
    Text += P;
  }
  PathText = std::move(Text);
  PathSpans = Spans;
}

void loadKernelMetadata(Kernel &K) {
  if (!K.MetadataDeferred)
    return;
  K.MetadataDeferred = false;
  if (K.has(Stage::Metadata)) {
    Expected<KernelMetadata> M = readKernelMetadata(K.path(Stage::Metadata));
    if (M)
      K.Meta = std::make_shared<const KernelMetadata>(std::move(*M));
    else
      K.Notes.push_back(toString(M.takeError()));
  } else if (K.has(Stage::TTGIR)) {
    if (std::optional<KernelMetadata> M =
            metadataFromTtgir(K.path(Stage::TTGIR)))
      K.Meta = std::make_shared<const KernelMetadata>(std::move(*M));
  }
}

} // namespace gestell
