// The soak's segmented reductions: rk::segmented_reduce in its three forms and the segmented arg
// forms, every segment checked against rk::seq (exact kinds) or rk::host (float sums).

#include "soak_run.cuh"

namespace soak
{
namespace
{
/// The call's segments as begin and end offsets: CSR's for the CSR forms; for CUB's form, the same
/// lengths at random places (segments may overlap, repeat and come in any order).
struct bounds
{
  std::vector<std::int64_t> begins, ends;
};

bounds make_bounds(const call& c, const std::vector<std::int64_t>& offsets)
{
  bounds b;
  rk_test::splitmix r{c.data_seed ^ 0xb0b0ull};
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s)
  {
    const std::int64_t len   = offsets[s + 1] - offsets[s];
    const std::int64_t begin = c.n > len
                               ? static_cast<std::int64_t>(r.next() % static_cast<std::uint64_t>(c.n - len + 1))
                               : 0;
    b.begins.push_back(begin);
    b.ends.push_back(std::min(c.n, begin + len));
  }
  return b;
}

/// Host bytes for `count` values of X, written by a host policy.
template <class X>
struct host_output
{
  std::vector<unsigned char> bytes;
  explicit host_output(std::size_t count)
      : bytes(count * sizeof(X) + 16, 0xcd)
  {}
  X* get()
  {
    return reinterpret_cast<X*>(bytes.data());
  }
};

/// Compares every segment's value; `begin_of(s)` and `end_of(s)` give segment s's items.
template <class C, class B, class E>
void compare_segments(const call& c, const std::vector<unsigned char>& got, const std::vector<unsigned char>& want,
                      std::int64_t segments, const typename C::item* first, B begin_of, E end_of, outcome& o)
{
  using T = typename C::T;
  for (std::int64_t s = 0; s < segments; ++s)
  {
    const T g = at<T>(got, static_cast<std::size_t>(s)), w = at<T>(want, static_cast<std::size_t>(s));
    const std::int64_t b = begin_of(s), e = end_of(s);
    ++o.checks;
    if (!agrees<C>(g, w, c.p, static_cast<double>(e - b), magnitude<C>(first + b, e > b ? e - b : 0)))
    {
      o.fail("segment " + std::to_string(s) + " [" + std::to_string(b) + ", " + std::to_string(e) + "): " + show(g)
             + ", the host's " + show(w));
      return;
    }
  }
}

template <class C, class Ref, class Run>
void check_segments(const call& c, std::int64_t segments, const host_items<C>& host, Ref reference, Run run,
                    cudaStream_t stream, outcome& o, const std::vector<std::int64_t>& begins,
                    const std::vector<std::int64_t>& ends)
{
  using T = typename C::T;
  host_output<T> want(static_cast<std::size_t>(segments));
  reference(want.get());
  std::vector<unsigned char> got;
  if (c.p <= policy::host)
  {
    host_output<T> out(static_cast<std::size_t>(segments));
    run(out.get());
    got = std::move(out.bytes);
  }
  else
  {
    const device_array<T> out(static_cast<std::size_t>(segments), stream);
    run(out.ptr());
    got = out.download(static_cast<std::size_t>(segments));
  }
  compare_segments<C>(
    c, got, want.bytes, segments, host.begin(), [&](std::int64_t s) { return begins[s]; },
    [&](std::int64_t s) { return ends[s]; }, o);
}

/// Offsets as the policy reads them: the host vector, or a device copy (int32 or int64).
template <class P, class F>
void with_offsets(const call& c, const std::vector<std::int64_t>& offsets, cudaStream_t stream, F&& f)
{
  if constexpr (is_gpu_policy_v<P>)
  {
    if (c.int32_offsets && policy_of<P>() == policy::device)
    {
      std::vector<std::int32_t> narrow(offsets.begin(), offsets.end());
      const device_array<std::int32_t> d(narrow.size(), stream);
      check_cuda(cudaMemcpyAsync(d.get(), narrow.data(), narrow.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice,
                                 stream),
                 "uploading the offsets");
      f(thrust::device_ptr<const std::int32_t>(d.get()), offsets.size());
      check_cuda(cudaStreamSynchronize(stream), "waiting for the call");
    }
    else
    {
      const device_array<std::int64_t> d(offsets.size(), stream);
      check_cuda(cudaMemcpyAsync(d.get(), offsets.data(), offsets.size() * sizeof(std::int64_t), cudaMemcpyHostToDevice,
                                 stream),
                 "uploading the offsets");
      f(thrust::device_ptr<const std::int64_t>(d.get()), offsets.size());
      check_cuda(cudaStreamSynchronize(stream), "waiting for the call");
    }
  }
  else
  {
    f(offsets.data(), offsets.size());
  }
}

template <kind K>
void check_csr(const call& c, cudaStream_t stream, outcome& o)
{
  using C                 = typename kind_of<K>::type;
  const auto offsets      = make_offsets(c);
  const std::int64_t segs = static_cast<std::int64_t>(offsets.size()) - 1;
  const host_items<C> host(c);
  const std::vector<std::int64_t> begins(offsets.begin(), offsets.end() - 1), ends(offsets.begin() + 1, offsets.end());
  const auto reference = [&](auto* out) {
    with_reference<C>(c, [&](auto p) {
      rk::segmented_reduce(p, host.begin(), offsets.begin(), offsets.end(), out, C::init(), typename C::op{});
    });
  };
  const auto run = [&](auto out) {
    with_policy<K, algorithm::segmented_csr>(c.p, stream, [&](auto p) {
      with_input<K, algorithm::segmented_csr>(c, p, host, stream, [&](auto first) {
        with_offsets<decltype(p)>(c, offsets, stream, [&](auto off, std::size_t count) {
          if constexpr (is_gpu_policy_v<decltype(p)> == !std::is_pointer_v<std::decay_t<decltype(out)>>)
          {
            rk::segmented_reduce(p, first, off, off + count, out, C::init(), typename C::op{});
          }
        });
      });
    });
  };
  check_segments<C>(c, segs, host, reference, run, stream, o, begins, ends);
}

template <kind K>
void check_bounded(const call& c, cudaStream_t stream, outcome& o)
{
  using C                 = typename kind_of<K>::type;
  const auto offsets      = make_offsets(c);
  const std::int64_t segs = static_cast<std::int64_t>(offsets.size()) - 1;
  const host_items<C> host(c);
  const bounds b       = make_bounds(c, offsets);
  const auto reference = [&](auto* out) {
    with_reference<C>(c, [&](auto p) {
      rk::segmented_reduce(p, host.begin(), segs, b.begins.data(), b.ends.data(), out, C::init(), typename C::op{});
    });
  };
  const auto run = [&](auto out) {
    with_policy<K, algorithm::segmented_bounded>(c.p, stream, [&](auto p) {
      using P = decltype(p);
      if constexpr (is_gpu_policy_v<P> == !std::is_pointer_v<std::decay_t<decltype(out)>>)
      {
        with_input<K, algorithm::segmented_bounded>(c, p, host, stream, [&](auto first) {
          if constexpr (is_gpu_policy_v<P>)
          {
            const device_array<std::int64_t> db(b.begins.size(), stream), de(b.ends.size(), stream);
            check_cuda(cudaMemcpyAsync(db.get(), b.begins.data(), b.begins.size() * sizeof(std::int64_t),
                                       cudaMemcpyHostToDevice, stream),
                       "uploading the begins");
            check_cuda(cudaMemcpyAsync(de.get(), b.ends.data(), b.ends.size() * sizeof(std::int64_t),
                                       cudaMemcpyHostToDevice, stream),
                       "uploading the ends");
            rk::segmented_reduce(p, first, segs, db.ptr(), de.ptr(), out, C::init(), typename C::op{});
            check_cuda(cudaStreamSynchronize(stream), "waiting for the call");
          }
          else
          {
            rk::segmented_reduce(p, first, segs, b.begins.data(), b.ends.data(), out, C::init(), typename C::op{});
          }
        });
      }
    });
  };
  check_segments<C>(c, segs, host, reference, run, stream, o, b.begins, b.ends);
}

template <kind K>
void check_fixed(const call& c, cudaStream_t stream, outcome& o)
{
  using C                 = typename kind_of<K>::type;
  const std::int64_t size = c.typical;
  const std::int64_t segs = c.n / size;
  const host_items<C> host(c);
  std::vector<std::int64_t> begins, ends;
  for (std::int64_t s = 0; s < segs; ++s)
  {
    begins.push_back(s * size);
    ends.push_back((s + 1) * size);
  }
  const auto reference = [&](auto* out) {
    with_reference<C>(c, [&](auto p) {
      rk::segmented_reduce(p, host.begin(), segs, size, out, C::init(), typename C::op{});
    });
  };
  const auto run = [&](auto out) {
    with_policy<K, algorithm::segmented_fixed>(c.p, stream, [&](auto p) {
      if constexpr (is_gpu_policy_v<decltype(p)> == !std::is_pointer_v<std::decay_t<decltype(out)>>)
      {
        with_input<K, algorithm::segmented_fixed>(c, p, host, stream, [&](auto first) {
          rk::segmented_reduce(p, first, segs, size, out, C::init(), typename C::op{});
          if constexpr (is_gpu_policy_v<decltype(p)>)
          {
            check_cuda(cudaStreamSynchronize(stream), "waiting for the call");
          }
        });
      }
    });
  };
  check_segments<C>(c, segs, host, reference, run, stream, o, begins, ends);
}

template <kind K, algorithm A>
void check_segmented_arg(const call& c, cudaStream_t stream, outcome& o)
{
  using C                 = typename kind_of<K>::type;
  using R                 = rk::arg_result<typename C::item, std::ptrdiff_t>;
  const auto offsets      = make_offsets(c);
  const std::int64_t segs = static_cast<std::int64_t>(offsets.size()) - 1;
  const host_items<C> host(c);
  const auto arg = [&](auto p, auto first, auto off, std::size_t count, auto out) {
    if constexpr (A == algorithm::segmented_arg_min)
    {
      rk::segmented_arg_min(p, first, off, off + count, out);
    }
    else
    {
      rk::segmented_arg_max(p, first, off, off + count, out);
    }
  };
  host_output<R> want(static_cast<std::size_t>(segs));
  arg(rk::seq, host.begin(), offsets.data(), offsets.size(), want.get());
  std::vector<unsigned char> got;
  with_policy<K, A>(c.p, stream, [&](auto p) {
    with_input<K, A>(c, p, host, stream, [&](auto first) {
      with_offsets<decltype(p)>(c, offsets, stream, [&](auto off, std::size_t count) {
        if constexpr (is_gpu_policy_v<decltype(p)>)
        {
          const device_array<R> out(static_cast<std::size_t>(segs), stream);
          arg(p, first, off, count, out.ptr());
          got = out.download(static_cast<std::size_t>(segs));
        }
        else
        {
          host_output<R> out(static_cast<std::size_t>(segs));
          arg(p, first, off, count, out.get());
          got = std::move(out.bytes);
        }
      });
    });
  });
  for (std::int64_t s = 0; s < segs; ++s)
  {
    ++o.checks;
    if (!same_arg(at<R>(got, static_cast<std::size_t>(s)), at<R>(want.bytes, static_cast<std::size_t>(s))))
    {
      o.fail("segment " + std::to_string(s) + ": the index (or value) differs from rk::seq's");
      return;
    }
  }
}

template <kind K>
void run_kind(const call& c, cudaStream_t stream, outcome& o)
{
  switch (c.a)
  {
    case algorithm::segmented_csr:
      return check_csr<K>(c, stream, o);
    case algorithm::segmented_bounded:
      if constexpr (kind_allowed(K, algorithm::segmented_bounded))
      {
        return check_bounded<K>(c, stream, o);
      }
      break;
    case algorithm::segmented_fixed:
      if constexpr (kind_allowed(K, algorithm::segmented_fixed))
      {
        return check_fixed<K>(c, stream, o);
      }
      break;
    case algorithm::segmented_arg_min:
      if constexpr (kind_allowed(K, algorithm::segmented_arg_min))
      {
        return check_segmented_arg<K, algorithm::segmented_arg_min>(c, stream, o);
      }
      break;
    case algorithm::segmented_arg_max:
      if constexpr (kind_allowed(K, algorithm::segmented_arg_max))
      {
        return check_segmented_arg<K, algorithm::segmented_arg_max>(c, stream, o);
      }
      break;
    default:
      break;
  }
  throw std::logic_error("rk_soak: run_segmented got a call it does not run");
}
} // namespace

outcome run_segmented(const call& c, cudaStream_t stream)
{
  outcome o;
  with_kind(c.k, [&](auto k) { run_kind<decltype(k)::value>(c, stream, o); });
  return o;
}
} // namespace soak
