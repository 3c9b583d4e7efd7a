#pragma once
// The command-line options rk_perf and its CUB peer share (sizes, types, trials, --quick,
// --json), so that rk_perf can hand its own choice to the peer and both measure the same cases.

#include <functional>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

namespace rk_perf
{
class usage_error : public std::runtime_error
{
public:
  using std::runtime_error::runtime_error;
};

inline constexpr int max_log2_size = 33;

/// The element types both executables measure, in report order.
const std::vector<std::string>& known_types();

struct common_options
{
  std::vector<int> log2_sizes;
  std::vector<std::string> types;
  int trials     = 0; ///< initial device trials per case; 0: the default of the mode
  int max_trials = 0; ///< cap of the adaptive trials; 0: the default of the mode
  bool quick     = false;
  bool help      = false;
  std::string json_path;

  bool wants_type(const std::string& type) const;
  /// The options that make another executable measure the same cases (for the peer).
  std::vector<std::string> case_arguments() const;
};

/// The usage lines of the shared options.
extern const char* const common_usage;

/// Handles one option `arg` whose value, if it takes one, comes from `value()`; false if unknown.
using option_handler = std::function<bool(const std::string& arg, const std::function<std::string()>& value)>;

/// Parses argv: the shared options into `opt`, any other through `other` (if given); throws
/// usage_error on an unknown option or a missing value.
void parse_arguments(int argc, char** argv, common_options& opt, const option_handler& other = {});

/// 2^10, 2^12, ..., 2^30: the sizes of a full run.
std::vector<int> default_log2_sizes();

/// Fills what was not given: sizes (`default_sizes`, or 2^10,14,18,22,26 with --quick), all types;
/// sorts and deduplicates the sizes.
void finish_common_options(common_options& opt, const std::vector<int>& default_sizes);

/// Whether `text` ends with `suffix`.
bool ends_with(const std::string& text, const std::string& suffix);

/// Splits "a,b,c", dropping empty items.
std::vector<std::string> split_list(const std::string& text);

/// The names of a comma-separated list, each of which must be in `known`.
std::vector<std::string> parse_names(const std::string& option, const std::string& text,
                                     const std::vector<std::string>& known);

/// Runs `main_body`, turning usage errors into exit status 2 with the usage text (`usage`) and
/// other exceptions into exit status 2 with their message, both prefixed with `program`.
int run_main(const char* program, void (*usage)(std::ostream&), const std::function<int()>& main_body);
} // namespace rk_perf
