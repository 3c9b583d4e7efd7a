#pragma once
// A small JSON reader, enough for rk_perf to read the figures its CUB peer wrote (objects,
// arrays, strings with the escapes json_string writes, numbers, true, false, null).

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace rk_perf
{
class json_value
{
public:
  enum class kind
  {
    null,
    boolean,
    number,
    string,
    array,
    object
  };

  kind type           = kind::null;
  bool boolean_value  = false;
  double number_value = 0;
  std::string string_value;
  std::vector<json_value> items;             ///< an array's elements
  std::map<std::string, json_value> members; ///< an object's members

  /// The member `key` of an object; throws std::runtime_error naming it if absent.
  const json_value& at(const std::string& key) const;
  /// Whether an object has the member `key` and it is not null.
  bool has(const std::string& key) const;
};

/// Parses `text`; throws std::runtime_error with the offset of the first error.
json_value parse_json(const std::string& text);

/// Parses the file at `path`; throws std::runtime_error naming it if unreadable or malformed.
json_value read_json_file(const std::string& path);
} // namespace rk_perf
