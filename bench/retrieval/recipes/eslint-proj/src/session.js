export function isExpired(session, now) {
  if (session.expires == null) return false;
  return now > session.expires;
}

export function refresh(session) {
  return { ...session, expires: Date.now() + TTL_MS };
}
