// Shared command-line options (see cli.hpp).

#include "cli.hpp"

#include <algorithm>
#include <iostream>
#include <sstream>

namespace rk_perf
{
namespace
{
int parse_int(const std::string& option, const std::string& text, int low, int high)
{
  std::size_t used = 0;
  int value        = 0;
  try
  {
    value = std::stoi(text, &used);
  }
  catch (const std::exception&)
  {
    used = 0;
  }
  if (used != text.size() || value < low || value > high)
  {
    throw usage_error(option + ": expected an integer in [" + std::to_string(low) + ", " + std::to_string(high)
                      + "], got '" + text + "'");
  }
  return value;
}

std::string join(const std::vector<std::string>& items)
{
  std::string out;
  for (const auto& item : items)
  {
    out += (out.empty() ? "" : ",") + item;
  }
  return out;
}
} // namespace

const std::vector<std::string>& known_types()
{
  static const std::vector<std::string> types = {"int32", "int64", "float", "double"};
  return types;
}

const char* const common_usage =
  "  --quick           sizes 2^10,14,18,22,26 and 3 to 9 trials (well under a minute)\n"
  "  --sizes 10,14,20  log2 of the element counts (default 10,12,...,30)\n"
  "  --types LIST      of int32,int64,float,double (default all)\n"
  "  --trials N        device-time trials every case gets (default 7; 3 with --quick)\n"
  "  --max-trials M    more trials, one at a time, up to M while an implementation's spread\n"
  "                    (interquartile range) exceeds 5 % of its median (default 31; 9 with --quick)\n"
  "  --json PATH       where to write every figure\n"
  "  --help            this text\n";

bool common_options::wants_type(const std::string& type) const
{
  return std::find(types.begin(), types.end(), type) != types.end();
}

std::vector<std::string> common_options::case_arguments() const
{
  std::vector<std::string> sizes;
  for (const int log2 : log2_sizes)
  {
    sizes.push_back(std::to_string(log2));
  }
  std::vector<std::string> args = {"--sizes", join(sizes), "--types", join(types)};
  if (quick)
  {
    args.push_back("--quick");
  }
  if (trials > 0)
  {
    args.insert(args.end(), {"--trials", std::to_string(trials)});
  }
  if (max_trials > 0)
  {
    args.insert(args.end(), {"--max-trials", std::to_string(max_trials)});
  }
  return args;
}

namespace
{
bool parse_common_option(const std::string& arg, const std::function<std::string()>& value, common_options& opt)
{
  if (arg == "--quick")
  {
    opt.quick = true;
  }
  else if (arg == "--help" || arg == "-h")
  {
    opt.help = true;
  }
  else if (arg == "--sizes")
  {
    opt.log2_sizes.clear();
    for (const auto& item : split_list(value()))
    {
      opt.log2_sizes.push_back(parse_int(arg, item, 0, max_log2_size));
    }
    if (opt.log2_sizes.empty())
    {
      throw usage_error("--sizes needs a comma-separated list");
    }
  }
  else if (arg == "--types")
  {
    opt.types = parse_names(arg, value(), known_types());
  }
  else if (arg == "--trials")
  {
    opt.trials = parse_int(arg, value(), 1, 1000);
  }
  else if (arg == "--max-trials")
  {
    opt.max_trials = parse_int(arg, value(), 1, 1000);
  }
  else if (arg == "--json")
  {
    opt.json_path = value();
  }
  else
  {
    return false;
  }
  return true;
}
} // namespace

void parse_arguments(int argc, char** argv, common_options& opt, const option_handler& other)
{
  for (int i = 1; i < argc; ++i)
  {
    const std::string arg = argv[i];
    const auto value      = [&]() -> std::string {
      if (i + 1 >= argc)
      {
        throw usage_error(arg + " needs a value");
      }
      return argv[++i];
    };
    if (!parse_common_option(arg, value, opt) && !(other && other(arg, value)))
    {
      throw usage_error("unknown option '" + arg + "'");
    }
  }
}

std::vector<int> default_log2_sizes()
{
  std::vector<int> sizes;
  for (int k = 10; k <= 30; k += 2)
  {
    sizes.push_back(k);
  }
  return sizes;
}

void finish_common_options(common_options& opt, const std::vector<int>& default_sizes)
{
  if (opt.log2_sizes.empty())
  {
    opt.log2_sizes = opt.quick ? std::vector<int>{10, 14, 18, 22, 26} : default_sizes;
  }
  std::sort(opt.log2_sizes.begin(), opt.log2_sizes.end());
  opt.log2_sizes.erase(std::unique(opt.log2_sizes.begin(), opt.log2_sizes.end()), opt.log2_sizes.end());
  if (opt.types.empty())
  {
    opt.types = known_types();
  }
}

bool ends_with(const std::string& text, const std::string& suffix)
{
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<std::string> split_list(const std::string& text)
{
  std::vector<std::string> items;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
  {
    if (!item.empty())
    {
      items.push_back(item);
    }
  }
  return items;
}

std::vector<std::string> parse_names(const std::string& option, const std::string& text,
                                     const std::vector<std::string>& known)
{
  std::vector<std::string> names = split_list(text);
  for (const auto& name : names)
  {
    if (std::find(known.begin(), known.end(), name) == known.end())
    {
      throw usage_error(option + ": unknown name '" + name + "'");
    }
  }
  if (names.empty())
  {
    throw usage_error(option + " needs a comma-separated list");
  }
  return names;
}

int run_main(const char* program, void (*usage)(std::ostream&), const std::function<int()>& main_body)
{
  try
  {
    return main_body();
  }
  catch (const usage_error& e)
  {
    std::cerr << program << ": " << e.what() << "\n";
    usage(std::cerr);
    return 2;
  }
  catch (const std::exception& e)
  {
    std::cerr << program << ": error: " << e.what() << "\n";
    return 2;
  }
}
} // namespace rk_perf
