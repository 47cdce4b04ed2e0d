// tesserac embed FILE -o OUT.c|OUT.o [--symbol NAME]: link an archive into an
// application; it is opened with tsr_archive_open_memory.
#include <cstdlib>
#include <memory>

#include "archive/archive_embed.h"
#include "archive/archive_reader.h"
#include "cli/commands.h"
#include "support/c_identifiers.h"
#include "support/file_io.h"
#include "support/subprocess.h"

namespace tsr::cli {

namespace {
struct EmbedOptions {
  std::string archive;
  std::string output;
  std::string symbol = "tesserac_archive";
};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Assembles the archive's bytes (.incbin of a scratch copy: the bytes that
// were verified, whatever happens to the file meanwhile) into a relocatable
// object with the system C compiler's assembler driver.
int write_object(const std::vector<uint8_t>& bytes, const std::string& symbol, const std::string& output) {
  const char* env = std::getenv("CC");
  std::string cc = find_in_path(env && *env ? env : "cc");
  if (cc.empty()) cc = find_in_path("clang-14");
  if (cc.empty()) return report_error("embed -o FILE.o needs a C compiler (set CC or install build-essential)", kExitToolchain);
  Expected<ScratchDir> dir = ScratchDir::create("tesserac-embed");
  if (!dir) return report(dir.error());
  const std::string bin_path = dir->path() + "/archive.bin", s_path = dir->path() + "/archive.s",
                    o_path = dir->path() + "/archive.o";
  Expected<std::string> assembly = embed_as_assembly(bytes.size(), symbol, bin_path);
  if (!assembly) return report(assembly.error());
  const std::string_view raw(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (Status wrote = write_file(bin_path, raw); !wrote.ok()) return report(wrote.error());
  if (Status wrote = write_file(s_path, *assembly); !wrote.ok()) return report(wrote.error());
  ProcessResult r = run_process({cc, "-c", "-x", "assembler", s_path, "-o", o_path});
  if (!r.error.empty()) return report_error(r.error, kExitToolchain);
  if (r.exit_code != 0) return report_error(cc + " failed to assemble the embedded archive:\n" + r.output, kExitToolchain);
  Expected<std::vector<uint8_t>> object = read_file_bytes(o_path);
  if (!object) return report(object.error());
  Status written = write_file_atomic(output, *object);
  return written.ok() ? kExitOk : report(written.error());
}
}  // namespace

RunFn register_embed(CLI::App& app) {
  auto opts = std::make_shared<EmbedOptions>();
  CLI::App* sub = app.add_subcommand("embed", "Turn an archive into C source or an object file to link into a program");
  sub->add_option("archive", opts->archive, "The archive")->required();
  sub->add_option("-o,--output", opts->output, "OUT.c or OUT.o")->required();
  sub->add_option("--symbol", opts->symbol, "Name of the byte array (default tesserac_archive; NAME_size holds the size)");
  return [opts]() -> int {
    if (!ends_with(opts->output, ".c") && !ends_with(opts->output, ".o"))
      return report_error("embed output must end in .c or .o, got '" + opts->output + "'", kExitUsage);
    // The symbol and NAME_size become globals of the user's program.
    if (!is_c_identifier(opts->symbol))
      return report_error("--symbol '" + opts->symbol + "' is not a C identifier", kExitUsage);
    if (std::optional<std::string> why = reserved_symbol_reason(opts->symbol))
      return report_error("--symbol '" + opts->symbol + "' is reserved: " + *why, kExitUsage);
    if (Status distinct = check_output_paths({{"archive", opts->archive}}, {{"-o", opts->output}}); !distinct.ok())
      return report(distinct.error());
    // Refuse to embed something the stub would refuse to open.
    Status verified = verify_archive_file(opts->archive);
    if (!verified.ok()) return report_error(verified.error().message(), kExitInvalid);   // it names the file
    Expected<std::vector<uint8_t>> bytes = read_file_bytes(opts->archive);
    if (!bytes) return report(bytes.error());
    if (ends_with(opts->output, ".o")) return write_object(*bytes, opts->symbol, opts->output);
    Expected<std::string> source = embed_as_c_source(*bytes, opts->symbol);
    if (!source) return report(source.error());
    Status written = write_file_atomic(opts->output, *source);
    return written.ok() ? kExitOk : report(written.error());
  };
}

}  // namespace tsr::cli
