// Sweep result rows: one line per point, CSV ("index,<axis columns>,<results>") or JSON Lines
// (.jsonl). Rows are appended with one write(2) each (O_APPEND), so a killed run leaves whole rows;
// on --resume a trailing partial line is dropped, a row whose axis values differ from the spec's
// for its index (the spec changed) is dropped and rerun, every row is dropped when the fingerprint
// of the resolved spec (sweep_fingerprint) differs from the one kept in "<out>.spec", and the other
// finished points are skipped.
// At the end the file is rewritten atomically in point order, so the output is identical for any
// thread or rank count. A new output (not --resume of an existing file) is created with its first
// row, and discard() removes what this run created when a point fails: an error leaves no
// header-only or partial file behind. A row that cannot be written (a full disk) keeps the rows
// already written, for --resume.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/system/sublayer.h"
#include "studies/sweep_spec.h"

namespace t3sim::studies {

// One result row (without newline) for point `index`.
std::string format_sweep_row(const SweepSpec& spec, bool jsonl, size_t index, const SweepPoint& p,
                             const system::SublayerResult& r);
bool is_jsonl(const std::filesystem::path& path);

class SweepOutput {
 public:
  // `fingerprint` (sweep_fingerprint) is kept beside the output in "<path>.spec"; on --resume the
  // rows are kept only when that file holds the same fingerprint (else every row is stale).
  SweepOutput(std::filesystem::path path, const SweepSpec& spec, bool resume,
              std::string fingerprint);
  ~SweepOutput();
  bool done(size_t index) const { return rows_.count(index) != 0; }
  size_t count() const { return rows_.size(); }
  size_t stale() const { return stale_; }  // rows dropped on --resume: other axis values
  // --resume found rows written under another fingerprint (base, system or model changed).
  bool spec_changed() const { return spec_changed_; }
  void append(size_t index, const std::string& line);  // line without trailing newline
  void finalize();                                     // rewrite sorted, atomically
  // After a failed point: removes the output and "<out>.spec" when this run created them (a
  // --resume of an existing file keeps its rows; so does a failed append, whose message says
  // --resume continues). Never throws.
  void discard() noexcept;

 private:
  std::string header() const;
  void load_existing();
  std::optional<size_t> row_index(const std::string& line) const;
  void create();  // writes "<out>.spec" and the header (+ kept rows), opens the row appender
  bool matches_spec(size_t index, const std::string& line) const;
  std::filesystem::path path_;
  std::string fingerprint_;
  bool spec_changed_ = false;
  const SweepSpec& spec_;
  bool jsonl_;
  int fd_ = -1;
  bool created_ = false;        // this run wrote the output (create())
  bool continued_ = false;      // --resume of a file that exists: never discarded
  bool append_failed_ = false;  // a full disk: the rows written so far stay for --resume
  std::map<size_t, std::string> rows_;
  size_t stale_ = 0;
};

}  // namespace t3sim::studies
