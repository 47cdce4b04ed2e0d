// rowwise: a reduction-normalization over the last axis of x[rows, cols].
#include "codecs/family_codecs.h"

namespace tsr {
namespace {

class RowwiseCodec final : public FamilyCodec {
 public:
  Family family() const override { return Family::rowwise; }
  int version() const override { return 1; }
  std::vector<std::string> keys() const override { return {"accumulate", "op", "shape", "eps", "affine"}; }

  bool decode(const MapReader& m, KernelSpec& spec) const override {
    const size_t errors_before = m.diag().error_count();
    decode_accumulate(m, spec);
    RowwiseSpec body;
    std::optional<std::string> op = m.required_enum("op", {"softmax", "log_softmax", "rmsnorm", "layernorm"}, "rowwise op");
    if (op) {
      if (*op == "softmax") body.op = RowOp::softmax;
      if (*op == "log_softmax") body.op = RowOp::log_softmax;
      if (*op == "rmsnorm") body.op = RowOp::rmsnorm;
      if (*op == "layernorm") body.op = RowOp::layernorm;
      const bool normalizes = body.op == RowOp::rmsnorm || body.op == RowOp::layernorm;
      if (normalizes) {
        body.eps = decode_f32_constant(m, "eps", true);
        if (body.eps && *body.eps <= 0.0) m.error(m.get("eps"), "'eps' must be positive");
        else if (body.eps && static_cast<float>(*body.eps) == 0.0f)
          m.error(m.get("eps"), "'eps' is " + m.get("eps")->text + ", which rounds to 0 in f32 (it must be positive)");
        if (auto affine = m.required_bool("affine")) body.affine = *affine;
      } else {
        m.reject_if_present("eps", "does not apply to " + *op);
        m.reject_if_present("affine", "does not apply to " + *op);
      }
    }
    if (const DocNode* shape = m.map_value("shape", true)) {
      MapReader s(*shape, m.file(), "rowwise shape", m.diag());
      s.check_keys({"rows", "cols"});
      if (auto d = decode_shape_dim(s, "rows")) body.rows = *d;
      if (auto d = decode_shape_dim(s, "cols")) body.cols = *d;
    }
    spec.body = body;
    if (m.diag().error_count() == errors_before) check_shape_against_abi(m, spec, {{"rows", body.rows}, {"cols", body.cols}});
    return m.diag().error_count() == errors_before;
  }

  void encode(const KernelSpec& spec, CanonicalWriter& out) const override {
    const RowwiseSpec& r = spec.rowwise();
    out.field("accumulate");
    out.str(dtype_name(*spec.accumulate));
    out.field("op"); out.str(row_op_name(r.op));
    out.field("rows"); out.dim(r.rows);
    out.field("cols"); out.dim(r.cols);
    if (r.eps) { out.field("eps"); out.f64(*r.eps); }
    if (r.op == RowOp::rmsnorm || r.op == RowOp::layernorm) { out.field("affine"); out.u64(r.affine ? 1 : 0); }
  }
};

}  // namespace

std::unique_ptr<FamilyCodec> make_rowwise_codec() { return std::make_unique<RowwiseCodec>(); }

}  // namespace tsr
