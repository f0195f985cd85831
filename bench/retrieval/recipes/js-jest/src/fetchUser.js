async function fetchUser(api, id) {
  const res = await api.get(`/users/${id}`);
  return { id, name: res.data.name, email: res.data.contact.email };
}
function waitForReady(emitter) {
  return new Promise((resolve) => emitter.on('ready', resolve));
}
module.exports = { fetchUser, waitForReady };
