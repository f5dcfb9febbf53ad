/**
 * The Lua scripts of `redisStore`: each check-and-write of a ref and its lease runs as one atomic script on the
 * Redis server. The refs live in one hash (field: server and task id); each lease is a key holding its owner's
 * name, with an expiry.
 */

/** KEYS: refs hash, lease. ARGV: field, ref JSON, owner, lease ms. 1 when written, 0 when another owns it. */
export const PUT = `local holder = redis.call('GET', KEYS[2])
if holder and holder ~= ARGV[3] then return 0 end
redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1`;
/** KEYS: refs hash, lease. ARGV: field, owner. Deletes ref and lease unless another worker owns the lease. */
export const REMOVE = `local holder = redis.call('GET', KEYS[2])
if holder and holder ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
return 1`;
/** KEYS: refs hash, lease. ARGV: field, owner, lease ms. The ref JSON when the lease was free (or ours). */
export const CLAIM = `local ref = redis.call('HGET', KEYS[1], ARGV[1])
if not ref then return false end
local holder = redis.call('GET', KEYS[2])
if holder and holder ~= ARGV[2] then return false end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
return ref`;
/**
 * KEYS: refs hash. ARGV: field prefix, owner, lease ms, lease key prefix. Takes every lapsed lease among the
 * refs whose field starts with ARGV[1] (one server's) and answers field, ref JSON, field, ref JSON, ...
 * Lease keys are built inside the script (ARGV[4] + field), so this needs a single Redis node, not a cluster.
 */
export const CLAIM_LAPSED = `local taken = {}
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(field, 1, #ARGV[1]) == ARGV[1] then
    local lease = ARGV[4] .. field
    if redis.call('EXISTS', lease) == 0 then
      redis.call('SET', lease, ARGV[2], 'PX', ARGV[3])
      table.insert(taken, field)
      table.insert(taken, redis.call('HGET', KEYS[1], field))
    end
  end
end
return taken`;
/**
 * KEYS: leases. ARGV: owner, lease ms, refs hash, then one field per lease. Renews every lease given in one
 * round trip; answers 1 (kept) or 0 (lost) per key. A lease that lapsed while
 * this worker was too busy to renew it, and that nobody took since, is taken again if its ref is still stored.
 */
export const RENEW = `local kept = {}
for i, key in ipairs(KEYS) do
  local holder = redis.call('GET', key)
  if holder == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    kept[i] = 1
  elseif not holder and redis.call('HEXISTS', ARGV[3], ARGV[3 + i]) == 1 then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
    kept[i] = 1
  else
    kept[i] = 0
  end
end
return kept`;
/** KEYS: lease. ARGV: owner. Deletes the lease if this owner holds it. */
export const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;
