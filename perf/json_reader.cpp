// A recursive-descent JSON reader (see json_reader.hpp).

#include "json_reader.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace rk_perf
{
const json_value& json_value::at(const std::string& key) const
{
  const auto found = members.find(key);
  if (found == members.end())
  {
    throw std::runtime_error("JSON: missing member \"" + key + "\"");
  }
  return found->second;
}

bool json_value::has(const std::string& key) const
{
  const auto found = members.find(key);
  return found != members.end() && found->second.type != kind::null;
}

namespace
{
class parser
{
public:
  explicit parser(const std::string& text)
      : text_(text)
  {}

  json_value document()
  {
    json_value value = parse_value();
    skip_space();
    if (pos_ != text_.size())
    {
      fail("text after the value");
    }
    return value;
  }

private:
  [[noreturn]] void fail(const std::string& what) const
  {
    throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(pos_));
  }

  void skip_space()
  {
    while (pos_ < text_.size()
           && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' || text_[pos_] == '\t'))
    {
      ++pos_;
    }
  }

  bool consume(char c)
  {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c)
    {
      ++pos_;
      return true;
    }
    return false;
  }

  void expect(char c)
  {
    if (!consume(c))
    {
      fail(std::string("expected '") + c + "'");
    }
  }

  bool consume_word(const char* word)
  {
    const std::string w(word);
    if (text_.compare(pos_, w.size(), w) == 0)
    {
      pos_ += w.size();
      return true;
    }
    return false;
  }

  json_value parse_value()
  {
    skip_space();
    json_value value;
    if (pos_ >= text_.size())
    {
      fail("unexpected end");
    }
    const char c = text_[pos_];
    if (c == '{')
    {
      value.type = json_value::kind::object;
      ++pos_;
      if (!consume('}'))
      {
        do
        {
          skip_space();
          std::string key = parse_string();
          expect(':');
          value.members[key] = parse_value();
        } while (consume(','));
        expect('}');
      }
    }
    else if (c == '[')
    {
      value.type = json_value::kind::array;
      ++pos_;
      if (!consume(']'))
      {
        do
        {
          value.items.push_back(parse_value());
        } while (consume(','));
        expect(']');
      }
    }
    else if (c == '"')
    {
      value.type         = json_value::kind::string;
      value.string_value = parse_string();
    }
    else if (consume_word("true"))
    {
      value.type          = json_value::kind::boolean;
      value.boolean_value = true;
    }
    else if (consume_word("false"))
    {
      value.type = json_value::kind::boolean;
    }
    else if (consume_word("null"))
    {
      value.type = json_value::kind::null;
    }
    else
    {
      const char* start  = text_.c_str() + pos_;
      char* end          = nullptr;
      value.number_value = std::strtod(start, &end);
      if (end == start)
      {
        fail("expected a value");
      }
      value.type = json_value::kind::number;
      pos_ += static_cast<std::size_t>(end - start);
    }
    return value;
  }

  std::string parse_string()
  {
    if (pos_ >= text_.size() || text_[pos_] != '"')
    {
      fail("expected a string");
    }
    ++pos_;
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"')
    {
      char c = text_[pos_++];
      if (c == '\\')
      {
        if (pos_ >= text_.size())
        {
          fail("unfinished escape");
        }
        const char e = text_[pos_++];
        if (e == 'u')
        {
          // json_string escapes only control characters, so one byte is enough.
          c = static_cast<char>(std::strtol(text_.substr(pos_, 4).c_str(), nullptr, 16));
          pos_ += 4;
        }
        else
        {
          c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b' : e == 'f' ? '\f' : e;
        }
      }
      out += c;
    }
    if (pos_ >= text_.size())
    {
      fail("unterminated string");
    }
    ++pos_;
    return out;
  }

  const std::string& text_;
  std::size_t pos_ = 0;
};
} // namespace

json_value parse_json(const std::string& text)
{
  return parser(text).document();
}

json_value read_json_file(const std::string& path)
{
  std::ifstream in(path);
  if (!in)
  {
    throw std::runtime_error("cannot read " + path);
  }
  std::ostringstream text;
  text << in.rdbuf();
  try
  {
    return parse_json(text.str());
  }
  catch (const std::runtime_error& e)
  {
    throw std::runtime_error(path + ": " + e.what());
  }
}
} // namespace rk_perf
