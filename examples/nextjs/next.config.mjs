// The gateway is a Node server library (it spawns agents, opens node:sqlite, serves its built web UI
// from its own folder): Next.js must load it from node_modules at run time, not bundle it.
/** @type {import('next').NextConfig} */
const config = {
  serverExternalPackages: ['@switchboard/server'],
};

export default config;
