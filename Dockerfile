# One image for all five apps; docker-compose.yml picks the app with `command`.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN DATABASE_URL=postgresql://build@localhost/build npx prisma generate && npm run build

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/prisma ./prisma
COPY --from=build /app/docs ./docs
COPY --from=build /app/apps/gateway/console ./apps/gateway/console
COPY --from=build /app/prisma.config.ts /app/package.json ./
USER node
CMD ["node", "dist/apps/gateway/src/main.js"]
