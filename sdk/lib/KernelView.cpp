//===- KernelView.cpp - Lazily parsed stages of one kernel ----------------===//
#include "gestell/KernelView.h"
#include "gestell/Error.h"

using namespace llvm;

namespace gestell {

// TtgirModule is complete only where its parser is; the view owns one.
KernelView::KernelView(const Kernel &K, const AnalysisOptions &Opts)
    : K(K), Opts(Opts) {}
KernelView::~KernelView() = default;

namespace {
template <typename T, typename ParseFn>
Expected<const T &> load(std::unique_ptr<T> &Value,
                         std::optional<std::string> &Err, ParseFn Parse) {
  if (Value)
    return *Value;
  if (Err)
    return createStringError(inconvertibleErrorCode(), *Err);
  Expected<std::unique_ptr<T>> R = Parse();
  if (!R) {
    Err = toString(R.takeError());
    return createStringError(inconvertibleErrorCode(), *Err);
  }
  Value = std::move(*R);
  return *Value;
}

Error missing(const Kernel &K, Stage S) {
  return inputError(K.Dir + "/" + K.Name + std::string(stageSuffix(S)),
                    "no " + stageName(S) + " file for kernel '" + K.Name + "'");
}
} // namespace

Expected<const PtxModule &> KernelView::ptx() {
  return load(Ptx.Value, Ptx.Error, [&]() -> Expected<std::unique_ptr<PtxModule>> {
    if (!K.has(Stage::PTX))
      return missing(K, Stage::PTX);
    return parsePtx(K.path(Stage::PTX));
  });
}

Expected<const SassModule &> KernelView::sass() {
  return load(Sass.Value, Sass.Error, [&]() -> Expected<std::unique_ptr<SassModule>> {
    if (K.has(Stage::SASS))
      return parseSass(K.path(Stage::SASS));
    if (K.has(Stage::SASSAlt))
      return parseSass(K.path(Stage::SASSAlt));
    return missing(K, Stage::SASS);
  });
}

Expected<const CubinInfo &> KernelView::cubin() {
  return load(Cubin.Value, Cubin.Error, [&]() -> Expected<std::unique_ptr<CubinInfo>> {
    if (!K.has(Stage::Cubin))
      return missing(K, Stage::Cubin);
    Expected<CubinInfo> C = readCubin(K.path(Stage::Cubin));
    if (!C)
      return C.takeError();
    return std::make_unique<CubinInfo>(std::move(*C));
  });
}

Expected<const TtgirModule &> KernelView::ttgir() {
  return load(Ttgir.Value, Ttgir.Error, [&]() -> Expected<std::unique_ptr<TtgirModule>> {
    if (!K.has(Stage::TTGIR))
      return missing(K, Stage::TTGIR);
    return parseTtgir(K.path(Stage::TTGIR));
  });
}

void KernelView::release() {
  Ptx = {};
  Sass = {};
  Cubin = {};
  Ttgir = {};
}

} // namespace gestell
