// Generated from docs/openapi.json by openapi-typescript (npm run openapi). Do not edit.
export interface paths {
    "/admin/v1/accounts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an account (answers its Basic credentials once)
         * @description See docs/admin-api.md.
         */
        post: operations["postAdminV1Accounts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/accounts/{account_id}/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Issue a project-level API key
         * @description See docs/admin-api.md.
         */
        post: operations["postAdminV1AccountsAccountIdApiKeys"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/accounts/{account_id}/credentials/reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reset an account's password
         * @description See docs/admin-api.md.
         */
        post: operations["postAdminV1AccountsAccountIdCredentialsReset"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/accounts/{account_id}/lines": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a line for an account
         * @description See docs/admin-api.md.
         */
        post: operations["postAdminV1AccountsAccountIdLines"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List API keys (no secrets)
         * @description See docs/admin-api.md.
         */
        get: operations["getAdminV1ApiKeys"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/api-keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API key
         * @description See docs/admin-api.md.
         */
        delete: operations["deleteAdminV1ApiKeysKeyId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/api-keys/{key_id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate an API key
         * @description See docs/admin-api.md.
         */
        post: operations["postAdminV1ApiKeysKeyIdRotate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List production runs of every account, newest first (filter by account, line and status)
         * @description See docs/admin-api.md.
         */
        get: operations["getAdminV1Runs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List oversight tasks of every account, newest first (filter by workstream and state)
         * @description See docs/admin-api.md.
         */
        get: operations["getAdminV1Tasks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/workers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register a worker (answers its token once)
         * @description See docs/admin-api.md.
         */
        post: operations["postAdminV1Workers"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/workstreams": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a workstream
         * @description See docs/admin-api.md.
         */
        post: operations["postAdminV1Workstreams"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/workstreams/{workstream_id}/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Issue a workstream API key
         * @description See docs/admin-api.md.
         */
        post: operations["postAdminV1WorkstreamsWorkstreamIdApiKeys"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/workstreams/{workstream_id}/buckets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mount a bucket (driver fs or s3) for oversight tasks
         * @description See docs/oversight-api.md.
         */
        post: operations["postAdminV1WorkstreamsWorkstreamIdBuckets"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/workstreams/{workstream_id}/configurations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Set a workstream configuration
         * @description See docs/performance-api.md.
         */
        post: operations["postAdminV1WorkstreamsWorkstreamIdConfigurations"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/workstreams/{workstream_id}/reports/quality": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Quality report of any workstream
         * @description See docs/admin-api.md.
         */
        get: operations["getAdminV1WorkstreamsWorkstreamIdReportsQuality"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/workstreams/{workstream_id}/reports/throughput": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Throughput report of any workstream
         * @description See docs/admin-api.md.
         */
        get: operations["getAdminV1WorkstreamsWorkstreamIdReportsThroughput"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/workstreams/{workstream_id}/task-quota": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a workstream's task-creation quota: limits in force and use in the current windows
         * @description See docs/oversight-api.md.
         */
        get: operations["getAdminV1WorkstreamsWorkstreamIdTaskQuota"];
        /**
         * Set a workstream's task-creation limits (null or left out: the default); in force on every gateway when answered
         * @description See docs/oversight-api.md.
         */
        put: operations["putAdminV1WorkstreamsWorkstreamIdTaskQuota"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The web console (worker and operator views)
         * @description See docs/console.md.
         */
        get: operations["getConsole"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/console.css": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The web console styles
         * @description See docs/console.md.
         */
        get: operations["getConsoleConsoleCss"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/console.js": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The web console script
         * @description See docs/console.md.
         */
        get: operations["getConsoleConsoleJs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This API description as an interactive page (Swagger UI)
         * @description See docs/operations.md.
         */
        get: operations["getDocs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs/asyncapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The Kafka topics and their events (AsyncAPI 3 JSON)
         * @description See docs/events.md.
         */
        get: operations["getDocsAsyncapiJson"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This API description (OpenAPI 3.1 JSON)
         * @description See docs/operations.md.
         */
        get: operations["getDocsOpenapiJson"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs/swagger-ui/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The interactive page's files (Swagger UI, from the gateway's own node_modules)
         * @description See docs/operations.md.
         */
        get: operations["getDocsSwaggerUiFile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs/v3-migration.md": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Migration notes from platform API v3 to v4
         * @description See docs/v3-migration.md.
         */
        get: operations["getDocsV3MigrationMd"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness of the gateway (PostgreSQL, Redis, Kafka): {status} for anyone; every component with the admin token (optional Bearer)
         * @description See docs/operations.md.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health/live": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness: the process is up
         * @description See docs/operations.md.
         */
        get: operations["getHealthLive"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness (the same checks and answers as /health)
         * @description See docs/operations.md.
         */
        get: operations["getHealthReady"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/media/tasks/{task_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download the media of a task (signed URL given to workers)
         * @description See docs/oversight-api.md.
         */
        get: operations["getMediaTasksTaskId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics (text format)
         * @description See docs/operations.md.
         */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/uploads/media/{media_key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Upload media to a presigned URL
         * @description See docs/oversight-api.md.
         */
        put: operations["putUploadsMediaMediaKey"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/uploads/performance/{upload_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Upload a CSV file to a presigned URL
         * @description See docs/performance-api.md.
         */
        put: operations["putUploadsPerformanceUploadId"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Describe the API key used
         * @description See docs/admin-api.md.
         */
        get: operations["getV1ApiKey"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook and callback deliveries
         * @description See docs/webhooks.md.
         */
        get: operations["getV1Deliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deliveries/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a delivery with its attempts
         * @description See docs/webhooks.md.
         */
        get: operations["getV1DeliveriesId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deliveries/{id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a delivery again
         * @description See docs/webhooks.md.
         */
        post: operations["postV1DeliveriesIdRedeliver"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/signed-url": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Get a presigned media upload URL
         * @description See docs/oversight-api.md.
         */
        post: operations["postV1SignedUrl"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an oversight task
         * @description See docs/oversight-api.md.
         */
        post: operations["postV1Tasks"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tasks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read an oversight task
         * @description See docs/oversight-api.md.
         */
        get: operations["getV1TasksId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workstreams/{workstream_id}/performance/generate-presigned-url": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Get a presigned URL for a bulk CSV upload
         * @description See docs/performance-api.md.
         */
        post: operations["postV1WorkstreamsWorkstreamIdPerformanceGeneratePresignedUrl"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workstreams/{workstream_id}/performance/uploads/{upload_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * State of a bulk CSV upload
         * @description See docs/performance-api.md.
         */
        get: operations["getV1WorkstreamsWorkstreamIdPerformanceUploadsUploadId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workstreams/{workstream_id}/reports/quality": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Quality report
         * @description See docs/performance-api.md.
         */
        get: operations["getV1WorkstreamsWorkstreamIdReportsQuality"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workstreams/{workstream_id}/reports/throughput": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Throughput report
         * @description See docs/performance-api.md.
         */
        get: operations["getV1WorkstreamsWorkstreamIdReportsThroughput"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workstreams/{workstream_id}/task_completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Submit a task completion record
         * @description See docs/performance-api.md.
         */
        post: operations["postV1WorkstreamsWorkstreamIdTaskCompleted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workstreams/{workstream_id}/task_reviewed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Submit a quality review record
         * @description See docs/performance-api.md.
         */
        post: operations["postV1WorkstreamsWorkstreamIdTaskReviewed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v3/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a task (deprecated: use POST /v4/runs)
         * @description See docs/platform-api.md.
         */
        post: operations["postV3Tasks"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v3/tasks/{task_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a task (deprecated: use GET /v4/runs/{id})
         * @description See docs/platform-api.md.
         */
        get: operations["getV3TasksTaskId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v4/lines": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the account's lines
         * @description See docs/platform-api.md.
         */
        get: operations["getV4Lines"];
        put?: never;
        /**
         * Create a line (lines are provisioned by Workline: always 403)
         * @description See docs/platform-api.md.
         */
        post: operations["postV4Lines"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v4/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a run
         * @description See docs/platform-api.md.
         */
        post: operations["postV4Runs"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v4/runs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a run with a page of its units
         * @description See docs/platform-api.md.
         */
        get: operations["getV4RunsId"];
        put?: never;
        post?: never;
        /**
         * Runs cannot be deleted (403; 404 for another account's run)
         * @description See docs/platform-api.md.
         */
        delete: operations["deleteV4RunsId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v4/runs/{id}/abort": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Abort a run
         * @description See docs/platform-api.md.
         */
        post: operations["postV4RunsIdAbort"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/workforce/v1/assignments/{id}/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Complete an assignment
         * @description See docs/work-api.md.
         */
        post: operations["postWorkforceV1AssignmentsIdComplete"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/workforce/v1/assignments/{id}/flag": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Flag an assignment
         * @description See docs/work-api.md.
         */
        post: operations["postWorkforceV1AssignmentsIdFlag"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/workforce/v1/assignments/next": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Lease the next unit or task
         * @description See docs/work-api.md.
         */
        post: operations["postWorkforceV1AssignmentsNext"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        AdminRunAnswer: {
            id: string;
            account_id: string;
            line_id: string;
            /** @enum {string} */
            api: "v4" | "v3";
            /** @enum {string} */
            status: "Processing" | "Processed";
            unit_count: number;
            pending_units: number;
            abort_requested: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            processed_at?: string | null;
        };
        AdminTaskAnswer: {
            workstream_id: string;
            account_id: string;
            task_id: string;
            /** @enum {string} */
            state: "QUEUED" | "IN_PROGRESS" | "COMPLETED" | "ERROR";
            media_key: string;
            configuration_id: string;
            bucket_id?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            result?: components["schemas"]["TaskResultAnswer"] | null;
            error?: components["schemas"]["TaskErrorAnswer"] | null;
        };
        ApiKeyAnswer: {
            prefix: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            last_used_at?: string | null;
            /** Format: date-time */
            revoked_at?: string | null;
            /** Format: date-time */
            expires_at?: string | null;
            rotated_from_id?: string | null;
            id: string;
            /** @enum {string} */
            scope: "account" | "workstream";
            account_id: string;
            workstream_id?: string | null;
        };
        ApiKeyDescriptionAnswer: {
            id: string;
            /** @enum {string} */
            scope: "account" | "workstream";
            account_id: string;
            workstream_id?: string | null;
        };
        AssignmentOutcomeAnswer: {
            assignment_id: string;
            /** @enum {string|null} */
            status?: "Completed" | "Flagged" | null;
            /** @enum {string|null} */
            kind?: "unit" | "task" | null;
            task_id?: string | null;
            /** @enum {string|null} */
            state?: "QUEUED" | "IN_PROGRESS" | "COMPLETED" | "ERROR" | null;
            next?: (components["schemas"]["UnitAssignmentAnswer"] | components["schemas"]["TaskAssignmentAnswer"]) | null;
        };
        BucketAnswer: {
            id: string;
            workstream_id: string;
            /** @enum {string} */
            driver: "fs" | "s3";
            root?: string | null;
            endpoint?: string | null;
            region?: string | null;
            bucket?: string | null;
            prefix?: string | null;
            access_key_id?: string | null;
            force_path_style?: boolean | null;
            /** Format: date-time */
            created_at: string;
        };
        CompleteTaskAssignmentDto: {
            updated_tags: components["schemas"]["TagDto"][];
            metadata?: components["schemas"]["MetadataItemDto"][] | null;
            next?: components["schemas"]["NextAssignmentDto"];
        };
        CompleteUnitAssignmentDto: {
            output: {
                [key: string]: unknown;
            };
            next?: components["schemas"]["NextAssignmentDto"];
        };
        ConfigurationAnswer: {
            id: string;
            workstream_id: string;
            name: string;
            extended_events: boolean;
            tool_project_id?: string | null;
            /** Format: date-time */
            created_at: string;
        };
        CreateAccountDto: {
            name: string;
        };
        CreateBucketDto: {
            /** @enum {string} */
            driver: "fs" | "s3";
            root?: string;
            endpoint?: string;
            region?: string;
            bucket?: string;
            prefix?: string;
            access_key_id?: string;
            secret_access_key?: string;
            force_path_style?: boolean;
        };
        CreateConfigurationDto: {
            name: string;
            extended_events?: boolean | null;
            tool_project_id?: string | null;
        };
        CreateLineDto: {
            name: string;
        };
        CreateMediaGrantDto: {
            configuration_id: string;
        };
        CreateRunBody: {
            line_id: string;
            callback_url?: string | null;
            units: {
                [key: string]: unknown;
            }[];
        };
        CreateTaskDto: {
            media_key: string;
            configuration_id: string;
            bucket_id?: string | null;
            callback_url?: string | null;
            existing_tags?: components["schemas"]["TagDto"][] | null;
            metadata?: components["schemas"]["MetadataItemDto"][] | null;
        };
        CreateV3TaskBody: {
            template_id: string;
            callback_url?: string | null;
            resources: {
                [key: string]: unknown;
            }[];
        };
        CreateWorkerDto: {
            /** Format: email */
            email: string;
            name: string;
        };
        CreateWorkstreamDto: {
            account_id: string;
            name: string;
            use_cases: components["schemas"]["UseCaseDto"][];
            qc_score_threshold?: number | null;
            qc_sample_rate?: number | null;
        };
        CredentialsAnswer: {
            id: string;
            username: string;
            password: string;
        };
        DeliveryAnswer: {
            id: string;
            event_type: string;
            task_id?: string | null;
            run_id?: string | null;
            url: string;
            /** @enum {string} */
            status: "pending" | "delivered" | "dead";
            attempt_count: number;
            /** Format: date-time */
            next_attempt_at?: string | null;
            last_status_code?: number | null;
            last_error?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            delivered_at?: string | null;
            /** Format: date-time */
            dead_at?: string | null;
        };
        DeliveryAttemptAnswer: {
            number: number;
            /** Format: date-time */
            attempted_at: string;
            status_code?: number | null;
            duration_ms: number;
            error?: string | null;
            response_excerpt?: string | null;
        };
        DeliveryDetailAnswer: {
            attempts: components["schemas"]["DeliveryAttemptAnswer"][];
            id: string;
            event_type: string;
            task_id?: string | null;
            run_id?: string | null;
            url: string;
            /** @enum {string} */
            status: "pending" | "delivered" | "dead";
            attempt_count: number;
            /** Format: date-time */
            next_attempt_at?: string | null;
            last_status_code?: number | null;
            last_error?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            delivered_at?: string | null;
            /** Format: date-time */
            dead_at?: string | null;
        };
        DeliveryPageAnswer: {
            deliveries: components["schemas"]["DeliveryAnswer"][];
            next_cursor?: string | null;
        };
        ErrorAnswer: {
            message: string;
            errors?: components["schemas"]["FieldErrorAnswer"][] | null;
            error_id?: string | null;
        };
        FieldErrorAnswer: {
            field: string;
            message: string;
        };
        FlagAssignmentDto: {
            reason: string;
            next?: components["schemas"]["NextAssignmentDto"];
        };
        GeneratePresignedUrlDto: {
            /** @enum {string} */
            kind: "quality" | "throughput";
            file_name?: string | null;
        };
        HealthAnswer: {
            /** @enum {string} */
            status: "ok" | "unavailable" | "draining";
            message?: string | null;
            components?: {
                [key: string]: {
                    /** @enum {unknown} */
                    status: "up" | "down";
                    detail?: string;
                    instance_id?: string;
                };
            } | null;
        };
        InternalErrorAnswer: {
            message: string;
            error_id: string;
        };
        LineAnswer: {
            id: string;
            name: string;
        };
        LiveAnswer: {
            /** @enum {string} */
            status: "ok";
        };
        MediaGrantAnswer: {
            media_upload_url: string;
            media_key: string;
            /** Format: date-time */
            expires_at: string;
        };
        MediaStoredAnswer: {
            media_key: string;
            content_type: string;
            size: number;
        };
        MessageAnswer: {
            message: string;
        };
        MetadataItemAnswer: {
            key: string;
            value: string;
        };
        MetadataItemDto: {
            key: string;
            value: string;
        };
        NewAccountAnswer: {
            name: string;
            id: string;
            username: string;
            password: string;
        };
        NewApiKeyAnswer: {
            id: string;
            key: string;
        };
        NewWorkerAnswer: {
            id: string;
            token: string;
        };
        NextAssignmentDto: {
            /** @enum {string} */
            kind: "unit" | "task";
            line_id?: string | null;
        };
        PerformanceUploadAnswer: {
            upload_id: string;
            workstream_id: string;
            /** @enum {string} */
            kind: "quality" | "throughput";
            file_name?: string | null;
            /** @enum {string} */
            state: "awaiting_upload" | "expired" | "queued" | "processing" | "completed" | "failed";
            /** Format: date-time */
            expires_at: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            received_at?: string | null;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            finished_at?: string | null;
            bytes?: number | null;
            rows_processed: number;
            rows_accepted: number;
            rows_stored: number;
            rows_replaced: number;
            rows_duplicates_ignored: number;
            rows_rejected: number;
            rejections: components["schemas"]["UploadRejectionAnswer"][];
            rejections_truncated: boolean;
            failure?: string | null;
        };
        PresignedUploadAnswer: {
            upload_url: string;
            upload_id: string;
            /** Format: date-time */
            expires_at: string;
            /** @enum {string} */
            method: "PUT";
            /** @enum {string} */
            content_type: "text/csv";
        };
        QualityReportAnswer: {
            /** @enum {string} */
            kind: "quality";
            groups: components["schemas"]["QualityReportGroupAnswer"][];
            workstream_id: string;
            from?: string | null;
            to?: string | null;
            group_by?: string | null;
        };
        QualityReportGroupAnswer: {
            key?: string | null;
            count: number;
            mean_score: number;
            p50_score: number;
            p90_score: number;
            min_score: number;
            max_score: number;
            errors: {
                [key: string]: number;
            };
        };
        RecordAcceptedAnswer: {
            message?: string | null;
        };
        RotateApiKeyDto: {
            overlap_seconds: number;
        };
        RunAnswer: {
            /** Format: date-time */
            processed_at?: string | null;
            units: components["schemas"]["UnitAnswer"][];
            units_page?: components["schemas"]["UnitsPageAnswer"] | null;
            id: string;
            line_id: string;
            /** @enum {string} */
            status: "Processing" | "Processed";
            /** Format: date-time */
            created_at: string;
        };
        RunCreatedAnswer: {
            id: string;
            line_id: string;
            /** @enum {string} */
            status: "Processing" | "Processed";
            /** Format: date-time */
            created_at: string;
        };
        RunPageAnswer: {
            runs: components["schemas"]["AdminRunAnswer"][];
            next_cursor?: string | null;
        };
        SetTaskQuotaDto: {
            day?: number | null;
            week?: number | null;
            month?: number | null;
        };
        TagAnswer: {
            value: string;
            confidence_score: number;
        };
        TagDto: {
            value: string;
            confidence_score: number;
        };
        TaskAnswer: {
            task_id: string;
            /** @enum {string} */
            state: "QUEUED" | "IN_PROGRESS" | "COMPLETED" | "ERROR";
            media_key: string;
            configuration_id: string;
            bucket_id?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            result?: components["schemas"]["TaskResultAnswer"] | null;
            error?: components["schemas"]["TaskErrorAnswer"] | null;
        };
        TaskAssignmentAnswer: {
            assignment_id: string;
            /** @enum {string} */
            kind: "task";
            task_id: string;
            media_url: string;
            media_type: string;
            existing_tags: components["schemas"]["TagAnswer"][];
            metadata: components["schemas"]["MetadataItemAnswer"][];
            /** Format: date-time */
            lease_expires_at: string;
        };
        TaskCreatedAnswer: {
            task_id: string;
        };
        TaskErrorAnswer: {
            message: string;
        };
        TaskPageAnswer: {
            tasks: components["schemas"]["AdminTaskAnswer"][];
            next_cursor?: string | null;
        };
        TaskQuotaAnswer: {
            workstream_id: string;
            day: components["schemas"]["TaskQuotaWindowAnswer"];
            week: components["schemas"]["TaskQuotaWindowAnswer"];
            month: components["schemas"]["TaskQuotaWindowAnswer"];
        };
        TaskQuotaWindowAnswer: {
            limit: number;
            default_limit: number;
            custom: boolean;
            used?: number | null;
            /** Format: date-time */
            resets_at: string;
        };
        TaskResultAnswer: {
            updated_tags: components["schemas"]["TagAnswer"][];
            existing_tags: components["schemas"]["TagAnswer"][];
            metadata: components["schemas"]["MetadataItemAnswer"][];
        };
        ThroughputReportAnswer: {
            /** @enum {string} */
            kind: "throughput";
            groups: components["schemas"]["ThroughputReportGroupAnswer"][];
            workstream_id: string;
            from?: string | null;
            to?: string | null;
            group_by?: string | null;
        };
        ThroughputReportGroupAnswer: {
            key?: string | null;
            records: number;
            tasks: number;
            subtasks: number;
            duration_seconds: number;
            mean_duration_seconds?: number | null;
            tasks_per_hour?: number | null;
        };
        UnitAnswer: {
            input: {
                [key: string]: unknown;
            };
            output: {
                [key: string]: unknown;
            };
            meta: components["schemas"]["UnitMetaAnswer"];
        };
        UnitAssignmentAnswer: {
            assignment_id: string;
            /** @enum {string} */
            kind: "unit";
            run_id: string;
            line_id: string;
            input: {
                [key: string]: unknown;
            };
            /** Format: date-time */
            lease_expires_at: string;
        };
        UnitMetaAnswer: {
            /** @enum {string} */
            status: "Processing" | "Completed" | "Flagged" | "Aborted";
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            processed_at?: string | null;
        };
        UnitsPageAnswer: {
            offset: number;
            limit?: number | null;
            total: number;
        };
        UploadRejectionAnswer: {
            row: number;
            errors: components["schemas"]["FieldErrorAnswer"][];
        };
        UseCaseDto: {
            id: string;
            task_definition_ids: string[];
        };
        V3ErrorAnswer: {
            /** @description The v3 error code (100-111, 401, 404, 500, or the HTTP status) */
            status: number;
            /** @description The code's description in the v3 code table, word for word (e.g. `Body is invalid`) */
            error: string;
            detail?: string | null;
            error_id?: string | null;
        };
        V3TaskAnswer: {
            /** Format: date-time */
            finished_at?: string | null;
            resources: {
                extra: {
                    status: string;
                };
            }[];
            template_id: string;
            task_id: string;
            /** @enum {string} */
            status: "In-Progress" | "Completed";
            /** Format: date-time */
            started_at: string;
        };
        V3TaskCreatedAnswer: {
            template_id: string;
            task_id: string;
            /** @enum {string} */
            status: "In-Progress" | "Completed";
            /** Format: date-time */
            started_at: string;
        };
        V4ErrorAnswer: {
            message: string;
            error_id?: string | null;
        };
        WorkstreamAnswer: {
            id: string;
            account_id: string;
            name: string;
            use_cases: components["schemas"]["UseCaseDto"][];
            qc_score_threshold: number;
            qc_sample_rate: number;
            /** Format: date-time */
            created_at: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    postAdminV1Accounts: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateAccountDto"];
            };
        };
        responses: {
            /** @description The account */
            201: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NewAccountAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postAdminV1AccountsAccountIdApiKeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                account_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The key (secret shown once) */
            201: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NewApiKeyAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postAdminV1AccountsAccountIdCredentialsReset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                account_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new credentials */
            200: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CredentialsAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postAdminV1AccountsAccountIdLines: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                account_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateLineDto"];
            };
        };
        responses: {
            /** @description The line */
            201: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LineAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getAdminV1ApiKeys: {
        parameters: {
            query?: {
                account_id?: string;
                workstream_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The keys */
            200: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyAnswer"][];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    deleteAdminV1ApiKeysKeyId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked */
            204: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postAdminV1ApiKeysKeyIdRotate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the creation safe to retry: the same key with the same body answers the first creation again (same status and resource, nothing created twice, marked Idempotent-Replayed: true); with another body it is a 422 (v3: 102, HTTP 400). Scope: the workstream (tasks), the account (runs) or the rotated key (key rotation). See docs/decisions.md. */
                "Idempotency-Key"?: string;
            };
            path: {
                key_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RotateApiKeyDto"];
            };
        };
        responses: {
            /** @description The new key */
            201: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    /** @description Present when the answer replays an earlier creation with the same Idempotency-Key */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NewApiKeyAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getAdminV1Runs: {
        parameters: {
            query?: {
                account_id?: string;
                line_id?: string;
                status?: "Processing" | "Processed";
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of runs */
            200: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunPageAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getAdminV1Tasks: {
        parameters: {
            query?: {
                workstream_id?: string;
                state?: "QUEUED" | "IN_PROGRESS" | "COMPLETED" | "ERROR";
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of tasks */
            200: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskPageAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postAdminV1Workers: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateWorkerDto"];
            };
        };
        responses: {
            /** @description The worker */
            201: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NewWorkerAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postAdminV1Workstreams: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateWorkstreamDto"];
            };
        };
        responses: {
            /** @description The workstream */
            201: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkstreamAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postAdminV1WorkstreamsWorkstreamIdApiKeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workstream_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The key (secret shown once) */
            201: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NewApiKeyAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postAdminV1WorkstreamsWorkstreamIdBuckets: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workstream_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateBucketDto"];
            };
        };
        responses: {
            /** @description The bucket */
            201: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BucketAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postAdminV1WorkstreamsWorkstreamIdConfigurations: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workstream_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateConfigurationDto"];
            };
        };
        responses: {
            /** @description The configuration */
            201: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConfigurationAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getAdminV1WorkstreamsWorkstreamIdReportsQuality: {
        parameters: {
            query?: {
                from?: string;
                to?: string;
                group_by?: "day" | "worker" | "use_case" | "task_definition";
                format?: "json" | "csv";
            };
            header?: never;
            path: {
                workstream_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The report (JSON, or CSV with format=csv) */
            200: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QualityReportAnswer"];
                    "text/csv": string;
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getAdminV1WorkstreamsWorkstreamIdReportsThroughput: {
        parameters: {
            query?: {
                from?: string;
                to?: string;
                group_by?: "day" | "worker" | "use_case" | "task_definition";
                format?: "json" | "csv";
            };
            header?: never;
            path: {
                workstream_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The report (JSON, or CSV with format=csv) */
            200: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ThroughputReportAnswer"];
                    "text/csv": string;
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getAdminV1WorkstreamsWorkstreamIdTaskQuota: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workstream_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The quota */
            200: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskQuotaAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    putAdminV1WorkstreamsWorkstreamIdTaskQuota: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workstream_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SetTaskQuotaDto"];
            };
        };
        responses: {
            /** @description The quota */
            200: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskQuotaAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getConsole: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description HTML */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getConsoleConsoleCss: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description CSS */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/css": string;
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getConsoleConsoleJs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description JavaScript */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/javascript": string;
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getDocs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description HTML */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getDocsAsyncapiJson: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description AsyncAPI document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getDocsOpenapiJson: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OpenAPI document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getDocsSwaggerUiFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                file: "swagger-ui.css" | "swagger-ui-bundle.js" | "workline-init.js";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description CSS or JavaScript */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/javascript": string;
                    "text/css": string;
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getDocsV3MigrationMd: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Markdown */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/markdown": string;
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HealthAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description A service did not answer in time */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HealthAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getHealthLive: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Alive */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LiveAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getHealthReady: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HealthAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description A service did not answer in time */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HealthAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getMediaTasksTaskId: {
        parameters: {
            query: {
                expires: number;
                signature: string;
            };
            header?: never;
            path: {
                task_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The media bytes */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "*/*": string;
                };
            };
            /** @description Forbidden (or a bad or expired URL signature) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Metrics */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    putUploadsMediaMediaKey: {
        parameters: {
            query: {
                expires: number;
                signature: string;
            };
            header?: never;
            path: {
                media_key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "image/jpeg": string;
                "image/png": string;
                "application/pdf": string;
                "video/mp4": string;
                "text/plain": string;
            };
        };
        responses: {
            /** @description The stored media */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MediaStoredAnswer"];
                };
            };
            /** @description Forbidden (or a bad or expired URL signature) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    putUploadsPerformanceUploadId: {
        parameters: {
            query: {
                expires: number;
                signature: string;
            };
            header?: never;
            path: {
                upload_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "text/csv": string;
            };
        };
        responses: {
            /** @description The upload */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PerformanceUploadAnswer"];
                };
            };
            /** @description Forbidden (or a bad or expired URL signature) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getV1ApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key: id, scope, account, workstream */
            200: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyDescriptionAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getV1Deliveries: {
        parameters: {
            query?: {
                task_id?: string;
                status?: "pending" | "delivered" | "dead";
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of deliveries */
            200: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeliveryPageAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getV1DeliveriesId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The delivery */
            200: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeliveryDetailAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postV1DeliveriesIdRedeliver: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new delivery */
            202: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeliveryAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postV1SignedUrl: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateMediaGrantDto"];
            };
        };
        responses: {
            /** @description The upload URL */
            200: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MediaGrantAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postV1Tasks: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the creation safe to retry: the same key with the same body answers the first creation again (same status and resource, nothing created twice, marked Idempotent-Replayed: true); with another body it is a 422 (v3: 102, HTTP 400). Scope: the workstream (tasks), the account (runs) or the rotated key (key rotation). See docs/decisions.md. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateTaskDto"];
            };
        };
        responses: {
            /** @description The task */
            201: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    /** @description Present when the answer replays an earlier creation with the same Idempotency-Key */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskCreatedAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Forbidden (or a bad or expired URL signature) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getV1TasksId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The task */
            200: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postV1WorkstreamsWorkstreamIdPerformanceGeneratePresignedUrl: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workstream_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["GeneratePresignedUrlDto"];
            };
        };
        responses: {
            /** @description The upload URL */
            201: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PresignedUploadAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Forbidden (or a bad or expired URL signature) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getV1WorkstreamsWorkstreamIdPerformanceUploadsUploadId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workstream_id: string;
                upload_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The upload */
            200: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PerformanceUploadAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Forbidden (or a bad or expired URL signature) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getV1WorkstreamsWorkstreamIdReportsQuality: {
        parameters: {
            query?: {
                from?: string;
                to?: string;
                group_by?: "day" | "worker" | "use_case" | "task_definition";
                format?: "json" | "csv";
            };
            header?: never;
            path: {
                workstream_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The report (JSON, or CSV with format=csv) */
            200: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QualityReportAnswer"];
                    "text/csv": string;
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Forbidden (or a bad or expired URL signature) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getV1WorkstreamsWorkstreamIdReportsThroughput: {
        parameters: {
            query?: {
                from?: string;
                to?: string;
                group_by?: "day" | "worker" | "use_case" | "task_definition";
                format?: "json" | "csv";
            };
            header?: never;
            path: {
                workstream_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The report (JSON, or CSV with format=csv) */
            200: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ThroughputReportAnswer"];
                    "text/csv": string;
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Forbidden (or a bad or expired URL signature) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postV1WorkstreamsWorkstreamIdTaskCompleted: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workstream_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RecordAcceptedAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Forbidden (or a bad or expired URL signature) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postV1WorkstreamsWorkstreamIdTaskReviewed: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workstream_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RecordAcceptedAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Forbidden (or a bad or expired URL signature) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postV3Tasks: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the creation safe to retry: the same key with the same body answers the first creation again (same status and resource, nothing created twice, marked Idempotent-Replayed: true); with another body it is a 422 (v3: 102, HTTP 400). Scope: the workstream (tasks), the account (runs) or the rotated key (key rotation). See docs/decisions.md. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateV3TaskBody"];
            };
        };
        responses: {
            /** @description The task */
            200: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    /** @description Present when the answer replays an earlier creation with the same Idempotency-Key */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V3TaskCreatedAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V3ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V3ErrorAnswer"];
                };
            };
            /** @description The API was withdrawn (V3_ENABLED=false) */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V3ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V3ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V3ErrorAnswer"];
                };
            };
        };
    };
    getV3TasksTaskId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                task_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The task */
            200: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V3TaskAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V3ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V3ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V3ErrorAnswer"];
                };
            };
            /** @description The API was withdrawn (V3_ENABLED=false) */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V3ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V3ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V3ErrorAnswer"];
                };
            };
        };
    };
    getV4Lines: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The lines */
            200: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LineAnswer"][];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postV4Lines: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                };
            };
        };
        responses: {
            /** @description The line */
            201: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LineAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Forbidden (or a bad or expired URL signature) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postV4Runs: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the creation safe to retry: the same key with the same body answers the first creation again (same status and resource, nothing created twice, marked Idempotent-Replayed: true); with another body it is a 422 (v3: 102, HTTP 400). Scope: the workstream (tasks), the account (runs) or the rotated key (key rotation). See docs/decisions.md. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateRunBody"];
            };
        };
        responses: {
            /** @description The run */
            201: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    /** @description Present when the answer replays an earlier creation with the same Idempotency-Key */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunCreatedAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    getV4RunsId: {
        parameters: {
            query?: {
                units_offset?: number;
                units_limit?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The run */
            200: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    deleteV4RunsId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Never */
            200: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Forbidden (or a bad or expired URL signature) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postV4RunsIdAbort: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The abort is under way */
            202: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Not allowed in the current state */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["V4ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postWorkforceV1AssignmentsIdComplete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CompleteUnitAssignmentDto"] | components["schemas"]["CompleteTaskAssignmentDto"];
            };
        };
        responses: {
            /** @description Completed */
            200: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AssignmentOutcomeAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postWorkforceV1AssignmentsIdFlag: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["FlagAssignmentDto"];
            };
        };
        responses: {
            /** @description Flagged */
            200: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AssignmentOutcomeAnswer"];
                };
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Conflict with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
    postWorkforceV1AssignmentsNext: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["NextAssignmentDto"];
            };
        };
        responses: {
            /** @description The assignment */
            200: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnitAssignmentAnswer"] | components["schemas"]["TaskAssignmentAnswer"];
                };
            };
            /** @description Nothing to do */
            204: {
                headers: {
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid JSON or body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Missing or bad credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unsupported Content-Type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Validation failed; the message names the fields */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Rate limit, failed-authentication limit or quota exceeded (Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    /** @description Requests per minute allowed to this credential in this API group */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until one more request is accepted */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorAnswer"];
                };
            };
            /** @description Unexpected error (500), logged under error_id */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorAnswer"];
                };
            };
        };
    };
}
