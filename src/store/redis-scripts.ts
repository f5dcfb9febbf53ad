/**
 * The Lua scripts of `redisStore` (layout 2, see redis-layout.ts). Each check-and-write runs as one atomic
 * script on the node that holds the shard, and touches only the shard's keys, always passed in the same order:
 * KEYS[1] refs, KEYS[2] owners, KEYS[3] held, KEYS[4] alive. ARGV[1] is the caller's owner id, ARGV[2] its lease
 * in ms. Time is Redis's own (`TIME`), so the workers' clocks never matter.
 *
 * A task is free to take when nobody owns it, when the caller owns it or another incarnation of the caller's
 * name does, or when its owner's lease in this shard has ended. Scripts that renew the caller's lease answer
 * what it was before: 0 none, 1 running, 2 ended. An ended (or vanished) lease means other workers may have
 * taken some of the caller's tasks; the store then checks which it still owns (`VERIFY`).
 */
import { INCARNATION_LENGTH } from "./redis-layout.js";

/** Where an owner id's name starts (after its incarnation): a Lua string index. */
const NAME = INCARNATION_LENGTH + 1;

const COMMON = `local clock = redis.call('TIME')
local now = clock[1] * 1000 + math.floor(clock[2] / 1000)
local me = ARGV[1]
local function running(owner)
  local ends = redis.call('ZSCORE', KEYS[4], owner)
  return ends and tonumber(ends) > now
end
local function free(owner)
  return not owner or owner == me or string.sub(owner, ${NAME}) == string.sub(me, ${NAME}) or not running(owner)
end
local function renew()
  local ends = redis.call('ZSCORE', KEYS[4], me)
  redis.call('ZADD', KEYS[4], now + tonumber(ARGV[2]), me)
  if not ends then return 0 end
  if tonumber(ends) > now then return 1 end
  return 2
end
local function take(owner, id)
  if owner == me then return end
  redis.call('ZREM', KEYS[3], (owner or '') .. '\\n' .. id)
  redis.call('HSET', KEYS[2], id, me)
  redis.call('ZADD', KEYS[3], 0, me .. '\\n' .. id)
end
`;

/** A shard script: the shared functions, then `body`. */
const make = (body: string) => COMMON + body;

/**
 * ARGV[3] task id, ARGV[4] ref JSON, ARGV[5] "update" or "". Stores the ref and takes the task: the lease state
 * before (0, 1, 2), or -1 when another worker's running lease covers it. An update is written only over a stored
 * ref the caller owns (else -1): a worker that wakes late never brings back a ref another worker removed.
 */
export const PUT = make(`local owner = redis.call('HGET', KEYS[2], ARGV[3])
if ARGV[5] == 'update' and (owner ~= me or redis.call('HEXISTS', KEYS[1], ARGV[3]) == 0) then return -1 end
if not free(owner) then return -1 end
local state = renew()
redis.call('HSET', KEYS[1], ARGV[3], ARGV[4])
take(owner, ARGV[3])
return state`);

/**
 * ARGV[3] task id, ARGV[4] "force" or "". Forgets the ref and its owner: 1, or 0 when another worker's running
 * lease covers it (unless forced: the ref is past its time to live, or unreadable).
 */
export const REMOVE = make(`local owner = redis.call('HGET', KEYS[2], ARGV[3])
if ARGV[4] ~= 'force' and not free(owner) then return 0 end
redis.call('HDEL', KEYS[1], ARGV[3])
redis.call('HDEL', KEYS[2], ARGV[3])
redis.call('ZREM', KEYS[3], (owner or '') .. '\\n' .. ARGV[3])
return 1`);

/** ARGV[3] task id. Hands the task back if the caller owns it (it becomes nobody's, free to take): 1, else 0. */
export const RELEASE = make(`if redis.call('HGET', KEYS[2], ARGV[3]) ~= me then return 0 end
redis.call('HDEL', KEYS[2], ARGV[3])
redis.call('ZREM', KEYS[3], me .. '\\n' .. ARGV[3])
if redis.call('HEXISTS', KEYS[1], ARGV[3]) == 1 then redis.call('ZADD', KEYS[3], 0, '\\n' .. ARGV[3]) end
return 1`);

/** ARGV[3] task id. Takes the task if it is free: { lease state, ref JSON }, or {} (not stored, or not free). */
export const CLAIM = make(`local ref = redis.call('HGET', KEYS[1], ARGV[3])
if not ref then return {} end
local owner = redis.call('HGET', KEYS[2], ARGV[3])
if not free(owner) then return {} end
local state = renew()
take(owner, ARGV[3])
return {state, ref}`);

/**
 * ARGV[3] at most this many tasks. Takes the tasks nobody owns, then those of owners whose lease ended (and
 * forgets such an owner once it owns nothing here): { lease state, 1 if more may be left, id, ref JSON, ... }.
 * The cost is the tasks taken plus the owners looked at, never the refs stored.
 */
export const CLAIM_LAPSED = make(`local most = tonumber(ARGV[3])
local taken = {}
local count = 0
local more = 0
local owners = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now, 'LIMIT', 0, most)
if #owners == most then more = 1 end
table.insert(owners, 1, '')
for _, owner in ipairs(owners) do
  if owner ~= me then
    local room = most - count
    if room <= 0 then more = 1 break end
    local first = owner .. '\\n'
    local members = redis.call('ZRANGEBYLEX', KEYS[3], '[' .. first, '(' .. owner .. '\\v', 'LIMIT', 0, room)
    for _, member in ipairs(members) do
      local id = string.sub(member, #first + 1)
      local ref = redis.call('HGET', KEYS[1], id)
      if ref then
        take(owner ~= '' and owner or nil, id)
        count = count + 1
        taken[#taken + 1] = id
        taken[#taken + 1] = ref
      else
        redis.call('ZREM', KEYS[3], member)
        redis.call('HDEL', KEYS[2], id)
      end
    end
    if #members < room then
      if owner ~= '' then redis.call('ZREM', KEYS[4], owner) end
    else
      more = 1
      break
    end
  end
end
local state = 1
if count > 0 then state = renew() end
table.insert(taken, 1, more)
table.insert(taken, 1, state)
return taken`);

/** Renews the caller's lease in this shard: the state before (0, 1, 2). */
export const RENEW = make(`return renew()`);

/**
 * ARGV[3] task id. Renews the caller's lease here and tells whether the task is still its own:
 * { lease state before (0, 1, 2), 1 if owned else 0 }. The store asks this before the client reports a task's
 * last word, so the report and the removal after it land inside a lease Redis itself has just renewed.
 */
export const CONFIRM = make(`local state = renew()
if redis.call('HGET', KEYS[2], ARGV[3]) == me then return {state, 1} end
return {state, 0}`);

/** ARGV[3...] task ids the caller believes it owns: 1 (owned) or 0 (taken by another, or gone) for each. */
export const VERIFY = make(`local owned = {}
for i = 3, #ARGV do
  owned[i - 2] = redis.call('HGET', KEYS[2], ARGV[i]) == me and 1 or 0
end
return owned`);

/**
 * The caller stops: its lease here ends now, so others may take its tasks at once (or, owning nothing here, it
 * is forgotten).
 */
export const RETIRE = make(`local first = me .. '\\n'
if #redis.call('ZRANGEBYLEX', KEYS[3], '[' .. first, '(' .. me .. '\\v', 'LIMIT', 0, 1) > 0 then
  redis.call('ZADD', KEYS[4], 0, me)
else
  redis.call('ZREM', KEYS[4], me)
end
return 1`);

/** KEYS[1] servers set; ARGV[1] server id. */
export const REGISTER_SERVER = `return redis.call('SADD', KEYS[1], ARGV[1])`;
/** KEYS[1] servers set. */
export const SERVERS = `return redis.call('SMEMBERS', KEYS[1])`;
/** KEYS[1] a shard's refs hash: field, value, field, value, ... */
export const REFS = `return redis.call('HGETALL', KEYS[1])`;
